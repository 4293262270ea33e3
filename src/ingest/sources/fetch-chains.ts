import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { log as defaultLog } from "../../lib/log.ts";
import type { Chain, Portal, Registry } from "../../registry.ts";
import { israelDate, toIsraelIso } from "../../lib/time.ts";
import type { FileType } from "../records.ts";
import { createAdapter, fallbackPortal } from "./adapters.ts";
import { isFtpUrl } from "./cerberus-ftp.ts";
import { saveResponse } from "./download.ts";
import { DEFAULT_HTTP, HttpClient, redact, type HttpOptions } from "./http.ts";
import { createLimiter } from "./limiter.ts";
import { effectiveExtraPortals, effectivePortal, type SourcesOverride } from "./overrides.ts";
import { DEFAULT_PROBE_TIMEOUT_MS, describe, endpointKey, endpointOf, probeEndpoints, type Reachability, type Unreachable } from "./reachability.ts";
import { selectFiles } from "./select.ts";
import type { ListedFile, PortalAdapter, SourceLog } from "./types.ts";

export interface FetchChainsOptions {
  /** The prices database (tables fetched_files and chain_health). */
  db: Database;
  registry: Registry;
  /** Downloads go to `<dataDir>/downloads/<slug>/<date>/`. */
  dataDir: string;
  /** Chain slugs; default every active chain. */
  chains?: string[];
  /** Israel-local `YYYY-MM-DD`; default today in Israel. */
  date?: string;
  /** Also fetch the day's Price/Promo deltas newer than each store's full files. */
  deltas?: boolean;
  /** Parsed MEHIR_SOURCES_FILE (see loadSourcesFile). */
  sourcesOverride?: SourcesOverride;
  log?: SourceLog;
  /** Timeouts, retries, backoff, User-Agent, proxy environment, fetch implementation. */
  http?: Partial<HttpOptions>;
  /** Downloads at once per portal host (default 3). */
  perHostConcurrency?: number;
  /** Chains fetched at once (default 4). */
  chainConcurrency?: number;
  /** Time to resolve and connect to each portal endpoint before the run (default 10 s; see reachability.ts). */
  probeTimeoutMs?: number;
  now?: () => Date;
}

export interface DownloadedFile {
  fileName: string;
  path: string;
  bytes: number;
  type: FileType | null;
  storeCode: string | null;
  time: string | null;
}

export interface PortalOutcome {
  family: Portal["family"];
  /** Base URL actually used (the fallback when the main one failed). */
  url: string;
  listed: number;
  error: string | null;
}

export interface ChainFetchResult {
  slug: string;
  /** ok: everything selected is on disk; partial: some portal or download failed; empty: nothing published for the day; failed: nothing fetched because of errors. */
  status: "ok" | "partial" | "empty" | "failed";
  portals: PortalOutcome[];
  listed: number;
  selected: number;
  /** Selected files skipped because an earlier run fetched them (same name and size). */
  alreadyFetched: number;
  downloaded: DownloadedFile[];
  dropped: Record<string, number>;
  errors: string[];
  /** Why portals of the chain were not tried: their endpoint could not be reached (see reachability.ts). */
  unreachable: Unreachable[];
}

export interface FetchReport {
  date: string;
  startedAt: string;
  finishedAt: string;
  chains: ChainFetchResult[];
  /** Paths of every file downloaded in this run, ready for the import. */
  files: string[];
}

export class FetchUsageError extends Error {
  override name = "FetchUsageError";
}

const defaultSourceLog: SourceLog = (level, msg, fields) => defaultLog[level](msg, fields);

/**
 * Fetches the day's files of the chains from their portals: lists every portal of each chain
 * (falling back to `fallback_url` when the main way in fails), applies the download policy
 * (selectFiles), skips files fetched before (table fetched_files, by name and size), downloads
 * with bounded concurrency per host, timeouts and retries, verifies each file is whole, and
 * records per-chain health in chain_health. Never throws for a portal failure: it is reported
 * per chain. The import of `report.files` is the caller's.
 *
 * @example
 * const report = await fetchChains({ db: prices, registry: loadRegistry(), dataDir: "./mehir-data", chains: ["rami-levy"] });
 * await importPaths(report.files);
 */
export async function fetchChains(options: FetchChainsOptions): Promise<FetchReport> {
  const now = options.now ?? (() => new Date());
  const log = options.log ?? defaultSourceLog;
  const startedAt = toIsraelIso(now());
  const date = options.date ?? israelDate(now());
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(date))) throw new FetchUsageError(`bad date "${date}", expected YYYY-MM-DD`);
  const chains = pickChains(options.registry, options.chains);
  const hostLimiters = new Map<string, ReturnType<typeof createLimiter>>();
  const limiterFor = (url: string) => {
    const ftp = isFtpUrl(url);
    const host = ftp ? "ftp:" + new URL(url).host : new URL(url).host;
    let limiter = hostLimiters.get(host);
    // One FTP connection per chain carries its transfers one at a time; the host gets one transfer at once.
    if (!limiter) hostLimiters.set(host, (limiter = createLimiter(ftp ? 1 : (options.perHostConcurrency ?? 3))));
    return limiter;
  };
  const reachability = await probePortals(chains, options, log);
  const chainLimit = createLimiter(options.chainConcurrency ?? 4);
  const results = await Promise.all(chains.map((chain) => chainLimit(() => fetchChain(chain, { ...options, date, log, now, limiterFor, reachability }))));
  return {
    date,
    startedAt,
    finishedAt: toIsraelIso(now()),
    chains: results,
    files: results.flatMap((r) => r.downloaded.map((d) => d.path)),
  };
}

/** Every portal (and fallback) of the chains, as reachable or not, probed once per endpoint at the same time. */
async function probePortals(chains: Chain[], options: FetchChainsOptions, log: SourceLog): Promise<Reachability> {
  const env = options.http?.env ?? DEFAULT_HTTP.env;
  const urls = chains.flatMap((chain) =>
    [effectivePortal(chain, options.sourcesOverride), ...effectiveExtraPortals(chain, options.sourcesOverride)].flatMap((p) => [p.base_url, p.fallback_url ?? []].flat()),
  );
  const reachability = await probeEndpoints(urls.map((url) => endpointOf(url, env)), options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS);
  for (const [endpoint, cause] of reachability) if (cause) log("warn", "fetch: portal unreachable", { endpoint, cause: describe(cause) });
  return reachability;
}

function pickChains(registry: Registry, slugs: string[] | undefined): Chain[] {
  if (!slugs || slugs.length === 0) return registry.chains.filter((c) => c.active);
  return slugs.map((slug) => {
    const chain = registry.bySlug.get(slug);
    if (!chain) throw new FetchUsageError(`unknown chain "${slug}" (see GET /api/v1/chains/ for the slugs)`);
    return chain;
  });
}

interface ChainRun extends FetchChainsOptions {
  date: string;
  log: SourceLog;
  now: () => Date;
  limiterFor: (url: string) => <T>(task: () => Promise<T>) => Promise<T>;
  reachability: Reachability;
}

async function fetchChain(chain: Chain, run: ChainRun): Promise<ChainFetchResult> {
  const { db, log, date } = run;
  const result: ChainFetchResult = { slug: chain.slug, status: "failed", portals: [], listed: 0, selected: 0, alreadyFetched: 0, downloaded: [], dropped: {}, errors: [], unreachable: [] };
  markAttempt(db, chain.slug, toIsraelIso(run.now()));
  log("info", "fetch: chain started", { chain: chain.slug, date });

  const portals = [effectivePortal(chain, run.sourcesOverride), ...effectiveExtraPortals(chain, run.sourcesOverride)];
  const owner = new Map<string, { adapter: PortalAdapter; client: HttpClient }>();
  const listing: ListedFile[] = [];
  const adapters: PortalAdapter[] = [];
  for (const portal of portals) {
    const listed = await listPortal(chain, portal, run, adapters);
    result.portals.push(listed.outcome);
    for (const cause of listed.unreachable) if (!result.unreachable.some((u) => describe(u) === describe(cause))) result.unreachable.push(cause);
    if (listed.outcome.error) result.errors.push(`${portal.family} ${redact(listed.outcome.url)}: ${listed.outcome.error}`);
    for (const file of listed.files) {
      if (owner.has(file.fileName)) continue;
      owner.set(file.fileName, { adapter: listed.adapter!, client: listed.client! });
      listing.push(file);
    }
  }
  result.listed = listing.length;
  const anyListed = result.portals.some((p) => p.error === null);

  try {
    if (anyListed) {
      const selection = selectFiles(listing, chain.chain_codes, date, run.deltas ?? false);
      result.dropped = selection.dropped;
      result.selected = selection.files.length;
      const fetched = db.prepare("SELECT bytes FROM fetched_files WHERE chain_slug = ? AND file_name = ?");
      const todo = selection.files.filter((file) => {
        const row = fetched.get(chain.slug, file.fileName) as { bytes: number } | null;
        const known = row !== null && (!file.sizeExact || file.size == null || row.bytes === file.size);
        if (known) result.alreadyFetched++;
        return !known;
      });
      const dir = join(run.dataDir, "downloads", chain.slug, date);
      const record = db.prepare(
        `INSERT INTO fetched_files (chain_slug, file_name, bytes, fetched_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (chain_slug, file_name) DO UPDATE SET bytes = excluded.bytes, fetched_at = excluded.fetched_at`,
      );
      await Promise.all(
        todo.map((file) =>
          run.limiterFor(file.url)(async () => {
            const { adapter, client } = owner.get(file.fileName)!;
            try {
              const saved = await client.retry(
                async (signal) => saveResponse(await adapter.download(file, signal), dir, file.fileName),
                client.options.downloadTimeoutMs,
              );
              record.run(chain.slug, file.fileName, saved.bytes, toIsraelIso(run.now()));
              result.downloaded.push({ fileName: file.fileName, path: saved.path, bytes: saved.bytes, type: file.type, storeCode: file.storeCode, time: file.time });
              log("debug", "fetch: downloaded", { chain: chain.slug, file: file.fileName, bytes: saved.bytes });
            } catch (error) {
              result.errors.push(`${file.fileName}: ${(error as Error).message}`);
              log("warn", "fetch: download failed", { chain: chain.slug, file: file.fileName, error: (error as Error).message });
            }
          }),
        ),
      );
      // Oldest first, as selected: the import applies fulls before later deltas.
      const rank = new Map(selection.files.map((f, i) => [f.fileName, i]));
      result.downloaded.sort((a, b) => rank.get(a.fileName)! - rank.get(b.fileName)!);
    }
  } finally {
    for (const adapter of adapters) await adapter.close?.().catch(() => {});
  }

  const failedDownloads = result.selected - result.alreadyFetched - result.downloaded.length;
  if (!anyListed) result.status = "failed";
  else if (result.selected === 0) result.status = result.errors.length ? "failed" : "empty";
  else if (failedDownloads > 0 && result.downloaded.length === 0 && result.alreadyFetched === 0) result.status = "failed";
  else result.status = result.errors.length ? "partial" : "ok";
  if (result.status === "empty") result.errors.push(`no files published for ${date}`);

  recordOutcome(db, chain.slug, result, toIsraelIso(run.now()));
  log(result.status === "ok" ? "info" : result.status === "empty" ? "warn" : "error", "fetch: chain finished", {
    chain: chain.slug,
    status: result.status,
    listed: result.listed,
    selected: result.selected,
    downloaded: result.downloaded.length,
    already_fetched: result.alreadyFetched,
    errors: result.errors.slice(0, 5),
  });
  return result;
}

async function listPortal(
  chain: Chain,
  portal: Portal,
  run: ChainRun,
  adapters: PortalAdapter[],
): Promise<{ outcome: PortalOutcome; files: ListedFile[]; unreachable: Unreachable[]; adapter?: PortalAdapter; client?: HttpClient }> {
  const attempts = [portal, fallbackPortal(portal)].filter((p): p is Portal => p !== null);
  const errors: string[] = [];
  const unreachable: Unreachable[] = [];
  for (const p of attempts) {
    const cause = run.reachability.get(endpointKey(endpointOf(p.base_url, run.http?.env ?? DEFAULT_HTTP.env)));
    if (cause) {
      errors.push(describe(cause));
      unreachable.push(cause);
      continue;
    }
    const client = new HttpClient(run.http);
    const adapter = createAdapter({ chain, portal: p, http: client, log: run.log });
    adapters.push(adapter);
    try {
      const files = await adapter.list({ date: run.date, deltas: run.deltas ?? false });
      return { outcome: { family: p.family, url: p.base_url, listed: files.length, error: null }, files, unreachable: [], adapter, client };
    } catch (error) {
      const message = (error as Error).message;
      errors.push(message);
      run.log("warn", "fetch: listing failed", { chain: chain.slug, family: p.family, url: redact(p.base_url), error: message });
    }
  }
  return { outcome: { family: portal.family, url: attempts[attempts.length - 1]!.base_url, listed: 0, error: errors.join(" | then: ") }, files: [], unreachable };
}

function markAttempt(db: Database, slug: string, at: string): void {
  db.prepare(
    `INSERT INTO chain_health (chain_slug, last_attempt_at) VALUES (?, ?)
     ON CONFLICT (chain_slug) DO UPDATE SET last_attempt_at = excluded.last_attempt_at`,
  ).run(slug, at);
}

/** files_fetched is the number of files the last attempt downloaded. */
function recordOutcome(db: Database, slug: string, result: ChainFetchResult, at: string): void {
  const success = result.status === "ok" || result.status === "partial";
  const error = result.errors.length ? result.errors.slice(0, 3).join("; ").slice(0, 1000) : null;
  db.prepare(
    `UPDATE chain_health
        SET last_success_at = CASE WHEN ? THEN ? ELSE last_success_at END,
            files_fetched = ?,
            last_error = ?
      WHERE chain_slug = ?`,
  ).run(success ? 1 : 0, at, result.downloaded.length, error, slug);
}
