import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { log as defaultLog } from "../../lib/log.ts";
import { normaliseCode, type Chain, type Portal, type Registry } from "../../registry.ts";
import { israelDate, toIsraelIso } from "../../lib/time.ts";
import type { FileType } from "../records.ts";
import { createAdapter, fallbackPortal } from "./adapters.ts";
import { isFtpUrl } from "./cerberus-ftp.ts";
import { saveResponse } from "./download.ts";
import { BlockedError, DEFAULT_HTTP, HttpClient, NoAnswerError, redact, type HttpOptions } from "./http.ts";
import { createLimiter } from "./limiter.ts";
import { effectiveExtraPortals, effectivePortal, type SourcesOverride } from "./overrides.ts";
import { DEFAULT_PROBE_TIMEOUT_MS, describe, endpointKey, endpointOf, probeEndpoints, type Reachability, type Unreachable } from "./reachability.ts";
import { fileKey, selectFiles } from "./select.ts";
import { listedFile } from "./listing.ts";
import { createPacer } from "./pacer.ts";
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
  /**
   * Earlier days whose files are still fetched when not fetched yet (MEHIR_FETCH_BACKFILL_DAYS,
   * DEFAULT_BACKFILL_DAYS, which `mehir fetch` and the collection loop pass; default here 0, the
   * day alone): a file published after the last run of its day is not lost.
   */
  backfillDays?: number;
  /**
   * The earlier days of the window to list for a chain when its listing of `date` shows no file
   * of them (date-filtered portals list one day at a time); default every earlier day of the
   * window. The collection loop lists an earlier day until one listing of it succeeded.
   */
  listEarlierDays?: (slug: string) => string[];
  /** Least time between two requests to one portal host (default 250 ms; see pacer.ts). */
  portalSpacingMs?: number;
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
  /** The chain the file's code names (another chain's file found on this chain's portal is its). */
  chainSlug: string;
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
  /** Set when the portal refused the service's address (challenge, 247/403, no answer): why. */
  refused: string | null;
}

export interface ChainFetchResult {
  slug: string;
  /** Days whose files the listing covered (`date`, and earlier days listed or seen in it). */
  days: string[];
  /**
   * The chain has published its day: every store with a PriceFull in the window (listed, or
   * fetched before) has one dated `date`. The collection loop then lists it less often.
   */
  dayComplete: boolean;
  /** Selected files still not on disk after the run (left for the next run). */
  pending: number;
  /** Newest publication time of the chain's files the listing showed. */
  newestFileAt: string | null;
  /**
   * ok: everything selected is on disk; partial: some portal or download failed; empty: nothing
   * published for the day; failed: nothing fetched because of errors; blocked: the portal refused
   * the service's address (a challenge page, 247/403, no answer at all).
   */
  status: "ok" | "partial" | "empty" | "failed" | "blocked";
  /** Why the chain is not `ok`, in a sentence; null when it is. */
  statusReason: string | null;
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
  /** Files of other registered chains found on this chain's portal and fetched as theirs: slug → files. */
  adopted: Record<string, number>;
  /** Chain codes of listed price files that no registered chain has (reported and logged). */
  unknownCodes: string[];
}

export interface FetchReport {
  date: string;
  /** First day of the window (`date` minus the backfill days). */
  earliest: string;
  startedAt: string;
  finishedAt: string;
  chains: ChainFetchResult[];
  /** Paths of every file downloaded in this run, ready for the import. */
  files: string[];
}

/** Earlier days whose files are still fetched (MEHIR_FETCH_BACKFILL_DAYS default). */
export const DEFAULT_BACKFILL_DAYS = 2;
/** Least time between two requests to one portal host. */
export const DEFAULT_PORTAL_SPACING_MS = 250;

/** @example addDays("2026-03-01", -1) // "2026-02-28" */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** Per file key (select.ts fileKey), the publication time of the newest file of the chain fetched. */
function newestFetched(db: Database, slug: string): Map<string, string> {
  const newest = new Map<string, string>();
  for (const { file_name } of db.prepare("SELECT file_name FROM fetched_files WHERE chain_slug = ?").all(slug) as { file_name: string }[]) {
    const file = listedFile(file_name, "");
    if (!file.time || !file.type || file.type === "price" || file.type === "promo" || file.isNullPlaceholder) continue;
    const key = fileKey(file);
    if (!newest.has(key) || file.time > newest.get(key)!) newest.set(key, file.time);
  }
  return newest;
}

/** The proxy environment of a chain: its own `proxy` (MEHIR_SOURCES_FILE) for every request when set. */
function proxyEnv(env: Record<string, string | undefined>, proxy: string | null | undefined): Record<string, string | undefined> {
  return proxy ? { HTTPS_PROXY: proxy, HTTP_PROXY: proxy } : env;
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
  const backfillDays = options.backfillDays ?? 0;
  const earlierDays = Array.from({ length: backfillDays }, (_, i) => addDays(date, -(backfillDays - i)));
  const pace = options.http?.pace ?? createPacer(options.portalSpacingMs ?? DEFAULT_PORTAL_SPACING_MS);
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
  const inRun = new Set(chains.map((c) => c.slug));
  const chainLimit = createLimiter(options.chainConcurrency ?? 4);
  const results = await Promise.all(
    chains.map((chain) =>
      chainLimit(() =>
        fetchChain(chain, {
          ...options,
          http: { ...options.http, pace },
          date,
          earliest: earlierDays[0] ?? date,
          inRun,
          earlierDays: options.listEarlierDays ? options.listEarlierDays(chain.slug).filter((d) => earlierDays.includes(d)) : earlierDays,
          log,
          now,
          limiterFor,
          reachability,
        }),
      ),
    ),
  );
  return {
    date,
    earliest: earlierDays[0] ?? date,
    startedAt,
    finishedAt: toIsraelIso(now()),
    chains: results,
    files: results.flatMap((r) => r.downloaded.map((d) => d.path)),
  };
}

/** Every portal (and fallback) of the chains, as reachable or not, probed once per endpoint at the same time. */
async function probePortals(chains: Chain[], options: FetchChainsOptions, log: SourceLog): Promise<Reachability> {
  const env = options.http?.env ?? DEFAULT_HTTP.env;
  const endpoints = chains.flatMap((chain) =>
    [effectivePortal(chain, options.sourcesOverride), ...effectiveExtraPortals(chain, options.sourcesOverride)]
      .flatMap((p) => [p.base_url, p.fallback_url ?? []].flat())
      .map((url) => endpointOf(url, proxyEnv(env, options.sourcesOverride?.[chain.slug]?.proxy))),
  );
  const reachability = await probeEndpoints(endpoints, options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS);
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
  earliest: string;
  /** Earlier days to list when the listing of `date` shows none of their files. */
  earlierDays: string[];
  /** Slugs fetched in this run (their files on another chain's portal are left to them). */
  inRun: Set<string>;
  log: SourceLog;
  now: () => Date;
  limiterFor: (url: string) => <T>(task: () => Promise<T>) => Promise<T>;
  reachability: Reachability;
}

async function fetchChain(chain: Chain, run: ChainRun): Promise<ChainFetchResult> {
  const { db, log, date } = run;
  const result: ChainFetchResult = { slug: chain.slug, days: [], dayComplete: false, pending: 0, newestFileAt: null, status: "failed", statusReason: null, portals: [], listed: 0, selected: 0, alreadyFetched: 0, downloaded: [], dropped: {}, errors: [], unreachable: [], adopted: {}, unknownCodes: [] };
  markAttempt(db, chain.slug, toIsraelIso(run.now()));
  log("info", "fetch: chain started", { chain: chain.slug, date });

  const portals = [effectivePortal(chain, run.sourcesOverride), ...effectiveExtraPortals(chain, run.sourcesOverride)];
  const owner = new Map<string, { adapter: PortalAdapter; client: HttpClient }>();
  const listing: ListedFile[] = [];
  const adapters: PortalAdapter[] = [];
  const blockedDownloads: string[] = [];
  /** Earlier days some portal listed on their own (a date-filtered portal). */
  const listedDays = new Set<string>();
  for (const portal of portals) {
    const listed = await listPortal(chain, portal, run, adapters, listedDays);
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
  // Days the listing covered: all of them from a portal listing everything, else those listed.
  const allDays = adapters.length > 0 && result.portals.every((p) => p.error === null) && !adapters.some((a) => a.listsByDate);
  if (anyListed) result.days = [...new Set([date, ...run.earlierDays.filter((d) => allDays || listing.some((f) => f.time?.startsWith(d)) || listedDays.has(d))])].sort();
  const own = new Set(chain.chain_codes.map(normaliseCode));
  const fetchedBefore = newestFetched(db, chain.slug);
  /** Store key → whether it has a PriceFull of `date`. */
  const stores = new Map<string, boolean>();
  for (const [key, time] of fetchedBefore) if (key.startsWith("pricefull:") && time.slice(0, 10) >= run.earliest) stores.set(key, time.startsWith(date));
  for (const file of listing) {
    if (file.chainCode && !own.has(file.chainCode)) continue;
    if (file.time && file.time.slice(0, 10) <= date && (!result.newestFileAt || file.time > result.newestFileAt)) result.newestFileAt = file.time;
    if (file.type === "pricefull" && !file.isNullPlaceholder && file.time && file.time.slice(0, 10) >= run.earliest && file.time.slice(0, 10) <= date) {
      stores.set(fileKey(file), (stores.get(fileKey(file)) ?? false) || file.time.startsWith(date));
    }
  }
  result.dayComplete = stores.size > 0 && [...stores.values()].every(Boolean);

  try {
    if (anyListed) {
      // A file belongs to the chain its code names, whatever portal lists it (Quik's files on
      // Carrefour's portal are Quik's); a code no chain has is reported, not silently dropped.
      const groups = new Map<Chain, ListedFile[]>([[chain, []]]);
      for (const file of listing) {
        const foreign = file.type && file.chainCode && !own.has(file.chainCode) ? file.chainCode : null;
        const other = foreign ? run.registry.byCode.get(foreign) : undefined;
        if (foreign && !other) {
          if (!result.unknownCodes.includes(foreign)) result.unknownCodes.push(foreign);
          result.dropped["unknown chain code"] = (result.dropped["unknown chain code"] ?? 0) + 1;
          continue;
        }
        // A chain fetched in this run from its own portal gets its files there.
        if (other && run.inRun.has(other.slug)) {
          result.dropped["other chain"] = (result.dropped["other chain"] ?? 0) + 1;
          continue;
        }
        const target = other ?? chain;
        if (!groups.has(target)) groups.set(target, []);
        groups.get(target)!.push(file);
      }
      if (result.unknownCodes.length) log("warn", "fetch: files under a chain code no chain has", { chain: chain.slug, codes: result.unknownCodes });
      const record = db.prepare(
        `INSERT INTO fetched_files (chain_slug, file_name, bytes, fetched_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (chain_slug, file_name) DO UPDATE SET bytes = excluded.bytes, fetched_at = excluded.fetched_at`,
      );
      const fetched = db.prepare("SELECT bytes FROM fetched_files WHERE chain_slug = ? AND file_name = ?");
      const order: string[] = [];
      for (const [target, files] of groups) {
        if (target !== chain && files.length === 0) continue;
        const selection = selectFiles(files, target.chain_codes, date, run.deltas ?? false, { earliest: run.earliest, newestFetched: target === chain ? fetchedBefore : newestFetched(db, target.slug) });
        for (const [reason, n] of Object.entries(selection.dropped)) result.dropped[reason] = (result.dropped[reason] ?? 0) + n;
        result.selected += selection.files.length;
        order.push(...selection.files.map((f) => f.fileName));
        if (target !== chain && selection.files.length) log("info", "fetch: files of another chain on this portal", { chain: chain.slug, owner: target.slug, files: selection.files.length });
        const todo = selection.files.filter((file) => {
          const row = fetched.get(target.slug, file.fileName) as { bytes: number } | null;
          const known = row !== null && (!file.sizeExact || file.size == null || row.bytes === file.size);
          if (known) result.alreadyFetched++;
          return !known;
        });
        // A file goes to its chain's folder of its own day (retention deletes day folders).
        const dirOf = (file: ListedFile) => join(run.dataDir, "downloads", target.slug, file.time?.slice(0, 10) ?? date);
        await Promise.all(
          todo.map((file) =>
            run.limiterFor(file.url)(async () => {
              const { adapter, client } = owner.get(file.fileName)!;
              try {
                const saved = await client.retry(
                  async (signal) => saveResponse(await adapter.download(file, signal), dirOf(file), file.fileName),
                  client.options.downloadTimeoutMs,
                );
                record.run(target.slug, file.fileName, saved.bytes, toIsraelIso(run.now()));
                result.downloaded.push({ fileName: file.fileName, chainSlug: target.slug, path: saved.path, bytes: saved.bytes, type: file.type, storeCode: file.storeCode, time: file.time });
                if (target !== chain) result.adopted[target.slug] = (result.adopted[target.slug] ?? 0) + 1;
                log("debug", "fetch: downloaded", { chain: target.slug, file: file.fileName, bytes: saved.bytes });
              } catch (error) {
                if (error instanceof BlockedError) blockedDownloads.push((error as Error).message);
                result.errors.push(`${file.fileName}: ${(error as Error).message}`);
                log("warn", "fetch: download failed", { chain: chain.slug, file: file.fileName, error: (error as Error).message });
              }
            }),
          ),
        );
      }
      // Oldest first, as selected: the import applies fulls before later deltas.
      const rank = new Map(order.map((name, i) => [name, i]));
      result.downloaded.sort((a, b) => rank.get(a.fileName)! - rank.get(b.fileName)!);
    }
  } finally {
    for (const adapter of adapters) await adapter.close?.().catch(() => {});
  }

  const failedDownloads = result.selected - result.alreadyFetched - result.downloaded.length;
  result.pending = failedDownloads;
  if (!anyListed) result.status = "failed";
  else if (result.selected === 0) result.status = result.errors.length ? "failed" : "empty";
  else if (failedDownloads > 0 && result.downloaded.length === 0 && result.alreadyFetched === 0) result.status = "failed";
  else result.status = result.errors.length ? "partial" : "ok";
  const refusedPortals = result.portals.filter((p) => p.refused).map((p) => p.refused!);
  if (!anyListed && refusedPortals.length > 0) result.status = "blocked";
  if (result.status === "failed" && failedDownloads > 0 && blockedDownloads.length === failedDownloads) result.status = "blocked";
  if (result.status === "empty") result.errors.push(`no files published for ${date}`);
  result.statusReason =
    result.status === "blocked"
      ? `the portal refused this address: ${(refusedPortals[0] ?? blockedDownloads[0])!}`
      : result.status === "ok"
        ? null
        : result.status === "empty"
          ? `no files published for ${date} yet`
          : (result.errors[0] ?? null);

  recordOutcome(db, chain.slug, result, toIsraelIso(run.now()));
  log(result.status === "ok" ? "info" : result.status === "empty" ? "warn" : "error", "fetch: chain finished", {
    chain: chain.slug,
    status: result.status,
    reason: result.statusReason,
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
  listedDays: Set<string>,
): Promise<{ outcome: PortalOutcome; files: ListedFile[]; unreachable: Unreachable[]; adapter?: PortalAdapter; client?: HttpClient }> {
  const attempts = [portal, fallbackPortal(portal)].filter((p): p is Portal => p !== null);
  const errors: string[] = [];
  const refused: string[] = [];
  const unreachable: Unreachable[] = [];
  for (const p of attempts) {
    const env = proxyEnv(run.http?.env ?? DEFAULT_HTTP.env, run.sourcesOverride?.[chain.slug]?.proxy);
    const cause = run.reachability.get(endpointKey(endpointOf(p.base_url, env)));
    if (cause) {
      errors.push(describe(cause));
      unreachable.push(cause);
      continue;
    }
    const client = new HttpClient({ ...run.http, env });
    const adapter = createAdapter({ chain, portal: p, http: client, log: run.log });
    adapters.push(adapter);
    try {
      const files = await adapter.list({ date: run.date, deltas: run.deltas ?? false });
      // A date-filtered portal lists one day: earlier days not in the listing are asked for.
      for (const day of adapter.listsByDate ? run.earlierDays : []) {
        if (files.some((f) => f.time?.startsWith(day))) continue;
        try {
          const names = new Set(files.map((f) => f.fileName));
          files.push(...(await adapter.list({ date: day, deltas: run.deltas ?? false })).filter((f) => !names.has(f.fileName)));
          listedDays.add(day);
        } catch (error) {
          run.log("warn", "fetch: listing of an earlier day failed", { chain: chain.slug, family: p.family, day, error: (error as Error).message });
        }
      }
      return { outcome: { family: p.family, url: p.base_url, listed: files.length, error: null, refused: null }, files, unreachable: [], adapter, client };
    } catch (error) {
      const message = (error as Error).message;
      errors.push(message);
      if (error instanceof BlockedError) refused.push(message);
      else if (error instanceof NoAnswerError) refused.push(`no answer from ${redact(p.base_url)} (${message}): the portal may drop this address`);
      run.log("warn", "fetch: listing failed", { chain: chain.slug, family: p.family, url: redact(p.base_url), error: message });
    }
  }
  // Refused only when every way in was refused (a working fallback is not a block).
  const blocked = refused.length > 0 && refused.length === attempts.length ? refused.join(" | then: ") : null;
  return { outcome: { family: portal.family, url: attempts[attempts.length - 1]!.base_url, listed: 0, error: errors.join(" | then: "), refused: blocked }, files: [], unreachable };
}

function markAttempt(db: Database, slug: string, at: string): void {
  db.prepare(
    `INSERT INTO chain_health (chain_slug, last_attempt_at) VALUES (?, ?)
     ON CONFLICT (chain_slug) DO UPDATE SET last_attempt_at = excluded.last_attempt_at`,
  ).run(slug, at);
}

/**
 * The portal's side of a chain's status (GET /api/v1/chains/ `status`): `blocked` when it refused
 * the service's address, `failing` when the attempt failed otherwise, else `ok`.
 */
export function fetchStatusOf(result: Pick<ChainFetchResult, "status">): "ok" | "failing" | "blocked" {
  return result.status === "blocked" ? "blocked" : result.status === "failed" ? "failing" : "ok";
}

/** files_fetched is the number of files the last attempt downloaded. */
function recordOutcome(db: Database, slug: string, result: ChainFetchResult, at: string): void {
  const success = result.status === "ok" || result.status === "partial";
  const error = result.errors.length ? result.errors.slice(0, 3).join("; ").slice(0, 1000) : null;
  const status = fetchStatusOf(result);
  db.prepare(
    `UPDATE chain_health
        SET last_success_at = CASE WHEN ? THEN ? ELSE last_success_at END,
            files_fetched = ?,
            last_error = ?,
            fetch_status = ?,
            status_reason = ?,
            newest_file_at = CASE WHEN newest_file_at IS NULL OR ? > newest_file_at THEN ? ELSE newest_file_at END
      WHERE chain_slug = ?`,
  ).run(success ? 1 : 0, at, result.downloaded.length, error, status, status === "ok" ? null : (result.statusReason ?? "").slice(0, 1000), result.newestFileAt, result.newestFileAt, slug);
}
