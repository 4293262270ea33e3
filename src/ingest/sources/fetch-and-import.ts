import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { PRICES_FILE } from "../../db/open.ts";
import { log as defaultLog } from "../../lib/log.ts";
import type { ImportReport } from "../run/report.ts";
import { runImportInWorker } from "../run/run-in-worker.ts";
import { importProgressLogger } from "../run/progress.ts";
import type { ImportPriority } from "../run/import-priority.ts";
import type { ArchiveLimits } from "../run/collect.ts";
import { fetchChains, type FetchChainsOptions, type FetchReport } from "./fetch-chains.ts";
import { loadSourcesFile } from "./overrides.ts";
import { pruneDownloads } from "./retention.ts";
import { acquireFetchLock } from "./fetch-lock.ts";
import type { SourceLog } from "./types.ts";

export interface FetchAndImportOptions extends Omit<FetchChainsOptions, "sourcesOverride"> {
  /** The prices database of `dataDir` (fetch bookkeeping: fetched_files, chain_health). */
  db: Database;
  /** Parsed MEHIR_SOURCES_FILE; wins over `sourcesFile`. */
  sourcesOverride?: FetchChainsOptions["sourcesOverride"];
  /** Path of MEHIR_SOURCES_FILE, read and validated here (a bad file throws SourcesFileError). */
  sourcesFile?: string;
  /** The prices database file the import worker opens; default `<dataDir>/prices.sqlite`. */
  dbPath?: string;
  /** Runs the import; default runImportInWorker (a worker thread with its own connection). */
  runImport?: typeof runImportInWorker;
  /** Day folders of downloads kept (default KEEP_DOWNLOAD_DAYS); older ones are deleted after the run. */
  keepDownloadDays?: number;
  /** CPU priority of the import thread (MEHIR_IMPORT_PRIORITY; default idle). */
  importPriority?: ImportPriority;
  /** What `.zip` downloads of several files may unpack (MEHIR_IMPORT_MAX_*_BYTES; default DEFAULT_ARCHIVE_LIMITS). */
  archiveLimits?: Partial<ArchiveLimits>;
  /** Months of price history kept (MEHIR_HISTORY_MONTHS; default 25). */
  historyMonths?: number;
  /** Called as soon as the import commits, before its report and WAL checkpoint (serve the new data from then). */
  onCommitted?: (dataVersion: number) => void;
}

export interface FetchAndImportResult {
  fetch: FetchReport;
  /** Absent when the fetch brought no new file. */
  import?: ImportReport;
}

/** The import after a fetch failed as a whole (worker crash); `fetch` is the fetch's report. */
export class FetchImportError extends Error {
  override name = "FetchImportError";
  constructor(
    message: string,
    readonly fetch: FetchReport,
  ) {
    super(message);
  }
}

const defaultSourceLog: SourceLog = (level, msg, fields) => defaultLog[level](msg, fields);

function currentSource(db: Database): string | null {
  return (db.query("SELECT value FROM meta WHERE key = 'source'").get() as { value: string } | null)?.value ?? null;
}

/**
 * Fetches the day's files of every active chain (or `chains`) from their portals, then imports
 * the downloads as live data (origin "fetch", source "live") in a worker thread, so a caller
 * serving requests never blocks. The first live import replaces demo data (never mixed). A chain
 * that fails to fetch keeps its previous data. Files the import could not load — or all of them
 * when the import itself failed — are forgotten by fetched_files, so the next run fetches them
 * again instead of skipping them as "already fetched". Day folders of downloads older than
 * `keepDownloadDays` are deleted afterwards. When the database does not hold live data
 * (a demo data dir), earlier downloads are not in it: fetched_files is cleared first.
 * One run at a time per data dir (a lock file; FetchBusyError while another holds it).
 * Never throws for a portal failure (reported per chain in `fetch`); throws FetchUsageError for a
 * bad date or an unknown chain slug, SourcesFileError for a malformed sources file, and
 * FetchImportError (carrying the fetch report) when the import run itself fails.
 *
 * @example
 * const { fetch, import: imported } = await fetchAndImport({ db: dbs.prices, registry, dataDir: settings.dataDir, sourcesFile: settings.sourcesFile });
 * fetch.chains.filter((c) => c.status === "failed"); imported?.dataVersion;
 */
export async function fetchAndImport(options: FetchAndImportOptions): Promise<FetchAndImportResult> {
  const sourcesOverride = options.sourcesOverride ?? (options.sourcesFile ? loadSourcesFile(options.sourcesFile) : undefined);
  const release = acquireFetchLock(options.dataDir);
  try {
    return await run(options, sourcesOverride);
  } finally {
    release();
  }
}

async function run(options: FetchAndImportOptions, sourcesOverride: FetchAndImportOptions["sourcesOverride"]): Promise<FetchAndImportResult> {
  const log = options.log ?? defaultSourceLog;
  const { db } = options;
  if (currentSource(db) !== "live") db.run("DELETE FROM fetched_files");

  const fetch = await fetchChains({ ...options, sourcesOverride, log });
  const failed = fetch.chains.filter((c) => c.status === "failed" || c.status === "blocked").map((c) => c.slug);
  log(failed.length ? "warn" : "info", "fetch: done", { date: fetch.date, files: fetch.files.length, chains: fetch.chains.length, failed });
  if (fetch.files.length === 0) {
    await prune(options, fetch.date, log);
    return { fetch };
  }

  const runImport = options.runImport ?? runImportInWorker;
  let report: ImportReport;
  try {
    report = await runImport({
      dbPath: options.dbPath ?? join(options.dataDir, PRICES_FILE),
      paths: fetch.files,
      origin: "fetch",
      source: "live",
      registry: options.registry.chains,
      priority: options.importPriority,
      archiveLimits: options.archiveLimits,
      historyMonths: options.historyMonths,
      onProgress: importProgressLogger("fetch", (msg, fields) => log("info", msg, fields)),
      onCommitted: options.onCommitted,
    });
  } catch (error) {
    forget(db, fetch, fetch.files);
    const message = (error as Error).message;
    log("error", "fetch: import failed", { error: message, files: fetch.files.length });
    throw new FetchImportError(`import of ${fetch.files.length} fetched file(s) failed: ${message}`, fetch);
  }
  const unloaded = report.dataVersion === null ? fetch.files : report.files.filter((f) => f.status === "rejected").map((f) => f.path);
  forget(db, fetch, unloaded);
  recordImportProblems(db, fetch, report, log);
  await prune(options, fetch.date, log);
  log(report.status === "ok" ? "info" : "warn", "fetch: imported", {
    status: report.status,
    files: report.totals.files,
    rejected: report.totals.rejected,
    rows: report.totals.rows,
    data_version: report.dataVersion,
    replaced: report.replaced,
    error: report.error,
  });
  return { fetch, import: report };
}

/**
 * A fetched file the import rejected, or that parsed to zero rows, is the chain's error too:
 * appended to chain_health.last_error (GET /api/v1/chains/ `last_fetch_error`) and logged.
 */
function recordImportProblems(db: Database, fetch: FetchReport, report: ImportReport, log: SourceLog): void {
  const byPath = new Map(report.files.map((f) => [f.path, f]));
  const update = db.prepare(
    `UPDATE chain_health SET last_error = substr(CASE WHEN last_error IS NULL THEN ? ELSE last_error || '; ' || ? END, 1, 1000) WHERE chain_slug = ?`,
  );
  for (const chain of fetch.chains) {
    const problems: string[] = [];
    for (const file of chain.downloaded) {
      const outcome = byPath.get(file.path);
      if (!outcome) continue;
      if (outcome.status === "rejected") problems.push(`${file.fileName} rejected by the import (${outcome.reason ?? "unreadable"})`);
      else if (outcome.zeroRows) problems.push(`${file.fileName} parsed to 0 rows`);
    }
    if (problems.length === 0) continue;
    const message = `import: ${problems.slice(0, 3).join("; ")}${problems.length > 3 ? `; and ${problems.length - 3} more` : ""}`;
    update.run(message, message, chain.slug);
    log("warn", "fetch: imported with problems", { chain: chain.slug, files: problems.length, problems: problems.slice(0, 5) });
  }
}

/** Old day folders go once their data is in the database; a failure to delete is only logged. */
async function prune(options: FetchAndImportOptions, today: string, log: SourceLog): Promise<void> {
  try {
    const removed = await pruneDownloads({ db: options.db, dataDir: options.dataDir, today, keepDays: options.keepDownloadDays });
    if (removed.length) log("info", "fetch: old downloads removed", { folders: removed.length });
  } catch (error) {
    log("warn", "fetch: could not remove old downloads", { error: (error as Error).message });
  }
}

/** Drops downloaded paths from fetched_files (the next fetch downloads them again). */
function forget(db: Database, fetch: FetchReport, paths: string[]): void {
  if (paths.length === 0) return;
  const wanted = new Set(paths);
  const del = db.prepare("DELETE FROM fetched_files WHERE chain_slug = ? AND file_name = ?");
  for (const chain of fetch.chains) {
    for (const file of chain.downloaded) if (wanted.has(file.path)) del.run(file.chainSlug, file.fileName);
  }
}
