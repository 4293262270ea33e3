import type { Database } from "bun:sqlite";
import { normaliseCode, type Registry } from "../../registry.ts";
import { resolveCity } from "../../geo/geo.ts";
import { CATEGORIES_VERSION, classify } from "../../search/categories.ts";
import { toIsraelIso } from "../../lib/time.ts";
import { rm } from "node:fs/promises";
import { collectFiles, type ArchiveLimits, type FoundFile } from "./collect.ts";
import { parseFileName } from "../files/name.ts";
import { orderFiles, type OrderedFile } from "./order.ts";
import { Prefetcher } from "../parse/prefetch.ts";
import type { ParseReply } from "../parse/parse-messages.ts";
import type { ParsedFile } from "../records.ts";
import type { PriceList } from "../load/price-rows.ts";
import { LoadSession, type SessionTimings } from "../load/session.ts";
import { detach } from "../load/detach.ts";
import type { Classifier } from "../load/products.ts";
import type { FileOutcome } from "../load/types.ts";
import { checkpointWal } from "../../db/checkpoint.ts";
import { DEFAULT_HISTORY_MONTHS, pruneDatabase } from "../../db/retention.ts";
import { reclaimFreePages } from "../../db/compaction.ts";
import { saveRunReport, totalsOf, type FileReport, type ImportOrigin, type ImportReport } from "./report.ts";

/** Default ceiling on a file's size, compressed and decompressed (the largest real files are ~40 MB of XML). */
export const DEFAULT_MAX_FILE_BYTES = 256 * 2 ** 20;

export interface ImportOptions {
  /** The prices database, on a connection nothing else uses during the run (readers use their own). */
  db: Database;
  registry: Registry;
  /** Files and folders (recursively); any file name or extension. */
  paths: string[];
  origin: ImportOrigin;
  source: "demo" | "live";
  now?: () => Date;
  onProgress?: (done: number, total: number, file: string) => void;
  /**
   * Called once the run's transaction is committed (its data visible to every connection), before
   * the run's report is written and the log checkpointed: a server can serve the new data at once.
   */
  onCommitted?: (dataVersion: number) => void;
  /** Months of price history kept (MEHIR_HISTORY_MONTHS; default DEFAULT_HISTORY_MONTHS): older rows are pruned after the run. */
  historyMonths?: number;
  /** False: nothing is pruned after the run (a test reading old published files back as they were); default true. */
  prune?: boolean;
  /** Largest file accepted, compressed and decompressed (zip-bomb guard). */
  maxFileBytes?: number;
  /** What the run's `.zip` archives of several files may write out (collect.ts; default DEFAULT_ARCHIVE_LIMITS). */
  archiveLimits?: Partial<ArchiveLimits>;
  /**
   * Delete all price data before loading (switching demo ↔ live). Implied when the database
   * holds data of the other source, so the two are never mixed.
   */
  replaceSource?: boolean;
  /** Fills products.category; default: the keyword classifier of src/search/categories.ts; null: none. */
  classify?: Classifier | null;
  /**
   * Threads that read and parse files ahead of the loader; default: cores − 1 (1–3). 0 parses on
   * the calling thread. By default small runs (under 16 files) parse inline.
   */
  parseWorkers?: number;
}

/** The report of a file that never reached the loader (what its name says, no rows). */
const emptyOutcome = (file: OrderedFile, registry?: Registry): FileOutcome => ({
  type: file.name?.type ?? null,
  chainCode: file.name?.chainCode ?? null,
  chainSlug: (file.name && registry?.byCode.get(normaliseCode(file.name.chainCode))?.slug) ?? null,
  storeCode: file.name?.storeCode ?? null,
  fileTime: file.name?.time ?? null,
  rows: 0,
  status: "rejected",
  reason: null,
  warnings: [],
  zeroRows: false,
  counts: {},
});

function currentSource(db: Database): string | null {
  const row = db.query("SELECT value FROM meta WHERE key = 'source'").get() as { value: string } | null;
  return row?.value ?? null;
}

/** Loads one read-and-parsed file; a file that could not be read becomes its report. */
function loadReply(session: LoadSession, registry: Registry, file: OrderedFile, reply: ParseReply): FileReport {
  const base = { path: file.source ?? file.path, fileName: file.fileName, bytes: reply.bytes || file.size };
  if (!reply.ok) return { ...base, ...emptyOutcome(file, registry), reason: detach(reply.reason) };
  const outcome = session.loadFile({
    fileName: file.fileName,
    bytes: base.bytes,
    name: reply.name,
    parsed: reply.parsed as ParsedFile | PriceList,
    partial: reply.partial,
    // Copies: a substring would keep the whole decoded file alive in the run's report.
    warnings: reply.warnings.map(detach),
  });
  return { ...base, ...outcome };
}

/**
 * Imports price-transparency files into the prices database as ONE transaction: readers see
 * the old data until the commit, then all of the new; a crash or kill before the commit
 * leaves the old data. Folders are expanded recursively, a `.zip` of several files into its
 * entries; files are loaded Stores first, then price files, then promotion files, each oldest
 * first (full before delta at equal times).
 * A bad file is reported and skipped (its savepoint rolled back), the rest imports. The run's
 * report is written to `import_runs`/`import_files` after the commit, then the write-ahead log is
 * checkpointed into the database file (checkpointWal) — not by the commit itself, so `onCommitted`
 * comes before that copy and its fsyncs. Between files the event
 * loop gets a turn, so a server in the same process keeps answering.
 *
 * @example
 * const report = await importPaths({ db, registry: loadRegistry(), paths: ["./downloads"], origin: "cli", source: "live" });
 * report.totals // { files: 120, ok: 118, partial: 1, rejected: 1, skipped: 0, imported: 119, rows: 401233, priceRows: 398000 }
 */
export async function importPaths(options: ImportOptions): Promise<ImportReport> {
  // The commit's automatic checkpoint would copy the run's pages into the database file (and wait
  // for its fsyncs) before the data is served: the run checkpoints after its report instead.
  const autocheckpoint = options.db.query("PRAGMA wal_autocheckpoint").values()[0]?.[0] as number;
  options.db.run("PRAGMA wal_autocheckpoint = 0");
  try {
    return await importRun(options);
  } finally {
    options.db.run(`PRAGMA wal_autocheckpoint = ${autocheckpoint}`);
  }
}

async function importRun(options: ImportOptions): Promise<ImportReport> {
  const now = options.now ?? (() => new Date());
  const started = performance.now();
  const startedAt = toIsraelIso(now());
  const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const files: FileReport[] = [];
  let dataVersion: number | null = null;
  let error: string | null = null;
  const previous = currentSource(options.db);
  const replaced = options.replaceSource === true || (previous !== null && previous !== "none" && previous !== options.source);

  const { files: found, missing, temporary } = await collectFiles(options.paths, { maxBytes, ...options.archiveLimits });
  // Entries of expanded zip archives are written out for this run only: removed however it ends.
  const removeTemporary = async () => {
    for (const folder of temporary) await rm(folder, { recursive: true, force: true });
  };
  for (const m of missing) {
    files.push({ path: m.path, fileName: m.path, bytes: 0, ...emptyOutcome({ path: m.path, size: 0, fileName: m.path, name: null }), reason: m.reason });
  }
  const ordered = orderFiles(dedupe(found, files), parseFileName);

  const io = { read: 0, parse: 0 };
  let session: LoadSession | null = null;
  // Files are parsed ahead (on worker threads when there are enough) and loaded in order.
  let ahead: Prefetcher | null = null;
  try {
    ahead = new Prefetcher(ordered, { workers: options.parseWorkers, maxBytes });
    const classifier = options.classify === undefined ? classify : options.classify;
    session = LoadSession.begin({
      db: options.db,
      registry: options.registry,
      now,
      classify: classifier,
      classifierVersion: classifier === classify ? CATEGORIES_VERSION : undefined,
      resolveCity,
      replace: replaced,
    });
    for (let i = 0; i < ordered.length; i++) {
      // While the next file is still being parsed, write held rows (and, with a core to spare, parse further files here).
      const loading = session;
      const reply = await ahead.take(i, () => loading.idle());
      io.read += reply.readMs;
      io.parse += reply.parseMs;
      files.push(loadReply(session, options.registry, ordered[i]!, reply));
      options.onProgress?.(i + 1, ordered.length, ordered[i]!.source ?? ordered[i]!.path);
      // Let an in-process server answer between files.
      await Bun.sleep(0);
    }
    // Every file is parsed: the parse threads' memory goes before the finishing writes need theirs.
    ahead.close();
    dataVersion = session.finish(options.source, toIsraelIso(now()));
    if (dataVersion === null) error = ordered.length === 0 ? "no files to import" : "no file could be imported";
  } catch (caught) {
    session?.abort();
    error = (caught as Error).message;
  } finally {
    ahead?.close();
    await removeTemporary();
  }
  if (dataVersion !== null) options.onCommitted?.(dataVersion);

  const totals = totalsOf(files);
  const status: ImportReport["status"] =
    dataVersion === null ? "failed" : totals.rejected > 0 || totals.partial > 0 || missing.length > 0 ? "partial" : "ok";
  const report: ImportReport = {
    runId: null,
    origin: options.origin,
    source: options.source,
    status,
    startedAt,
    finishedAt: toIsraelIso(now()),
    durationMs: Math.round(performance.now() - started),
    dataVersion,
    replaced: replaced && dataVersion !== null,
    files,
    totals,
    error,
    timings: {
      read: Math.round(io.read),
      parse: Math.round(io.parse),
      ...roundTimings(session?.timings ?? { files: 0, history: 0, indexes: 0, chainProducts: 0, identity: 0, commit: 0 }),
    },
  };
  try {
    report.runId = saveRunReport(options.db, report);
  } catch (caught) {
    report.error = [report.error, `run report not saved: ${(caught as Error).message}`].filter(Boolean).join("; ");
  }
  // What the retention policy no longer keeps goes, in short transactions after the run's (readers
  // see the same answers before and after: only rows outside every served window are removed).
  if (dataVersion !== null && options.prune !== false) {
    try {
      const pruned = pruneDatabase(options.db, { historyMonths: options.historyMonths ?? DEFAULT_HISTORY_MONTHS }, now(), { historyOneRowEach: session?.historyOneRowEach });
      report.pruned = { ...pruned, reclaimedPages: reclaimFreePages(options.db) };
    } catch (caught) {
      report.error = [report.error, `pruning failed: ${(caught as Error).message}`].filter(Boolean).join("; ");
    }
  }
  // The run's pages go into prices.sqlite itself (a copy of the file alone is then complete). A
  // failed run's rolled-back pages may have grown the log (on a full disk, to the last free
  // byte): emptied as well, so the disk gets its space back.
  checkpointWal(options.db);
  return report;
}

function roundTimings(t: SessionTimings): SessionTimings {
  return { files: Math.round(t.files), history: Math.round(t.history), indexes: Math.round(t.indexes), chainProducts: Math.round(t.chainProducts), identity: Math.round(t.identity), commit: Math.round(t.commit) };
}

/** Drops a file met twice (same name and size under two folders), reporting it as skipped. */
function dedupe(found: FoundFile[], reports: FileReport[]): FoundFile[] {
  const seen = new Map<string, string>();
  const out = [];
  for (const file of found) {
    const fileName = file.path.split(/[\\/]/).pop()!;
    const key = `${fileName}\u0000${file.size}`;
    const first = seen.get(key);
    if (first) {
      const name = parseFileName(fileName);
      reports.push({
        path: file.source ?? file.path,
        fileName,
        bytes: file.size,
        ...emptyOutcome({ ...file, fileName: "", name }),
        status: "skipped",
        reason: `same file as ${first}`,
      });
      continue;
    }
    seen.set(key, file.source ?? file.path);
    out.push(file);
  }
  return out;
}
