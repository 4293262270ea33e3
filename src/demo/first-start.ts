import type { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Registry } from "../registry.ts";
import { importPaths } from "../ingest/run/import.ts";
import type { ImportReport } from "../ingest/run/report.ts";
import { startImportWorker } from "../ingest/run/run-in-worker.ts";
import { importProgressLogger } from "../ingest/run/progress.ts";
import type { ImportPriority } from "../ingest/run/import-priority.ts";
import { generateDemo, type DemoReport } from "./generate.ts";

export const DEMO_FILES_DIR = "demo-files";

export interface EnsureDemoOptions {
  /** The prices database (`<dataDir>/prices.sqlite`, or `:memory:` in tests). */
  db: Database;
  registry: Registry;
  dataDir: string;
  /** Where the files are written; default `<dataDir>/demo-files`. */
  filesDir?: string;
  /** `MEHIR_SOURCE`: nothing is generated in live mode. Default "demo". */
  source?: "demo" | "live";
  now?: Date;
  seed?: number;
  /** Fraction of the full demo (tests). Default 1. */
  scale?: number;
  /**
   * Import in a worker with its own connection (keeps a server's thread free) or on `db`.
   * Default: the worker for a database file, inline for `:memory:`.
   */
  importer?: "worker" | "inline";
  log?: (msg: string, fields?: Record<string, unknown>) => void;
  /**
   * Called as soon as the import's transaction is committed, before its report and WAL checkpoint
   * (a server refreshes its data state here instead of at its next poll, up to a second later).
   */
  onCommitted?: () => void;
  /**
   * CPU priority of the worker's import. Default normal: on a first start no data is served
   * yet, so there is nothing for MEHIR_IMPORT_PRIORITY's idle default to protect, and an idle
   * import on a busy machine waits behind everything else (minutes instead of seconds).
   */
  importPriority?: ImportPriority;
}

export interface EnsureDemoResult {
  generated: boolean;
  /** Why nothing was done, when nothing was. */
  skipped?: "has-data" | "live-source";
  /** With the worker importer, `import.files` holds only the files not imported as they were (all are in `import_files`). */
  report?: { demo: DemoReport; import: ImportReport };
}

/**
 * First start with an empty database in demo mode: writes the demo files into
 * `<dataDir>/demo-files/` and imports them like any archive of real files (origin `demo`,
 * source `demo`). Later starts find `meta.data_version` and do nothing.
 *
 * @example const { generated } = await ensureDemoData({ db: dbs.prices, registry, dataDir: settings.dataDir, source: settings.source })
 */
export async function ensureDemoData(options: EnsureDemoOptions): Promise<EnsureDemoResult> {
  if ((options.source ?? "demo") !== "demo") return { generated: false, skipped: "live-source" };
  if (dataVersion(options.db) > 0) return { generated: false, skipped: "has-data" };

  const log = options.log ?? (() => {});
  const outDir = options.filesDir ?? join(options.dataDir, DEMO_FILES_DIR);
  // A half-written folder from an interrupted first start would mix two `now`s.
  rmSync(outDir, { recursive: true, force: true });
  const filename = (options.db as Database & { filename?: string }).filename ?? ":memory:";
  const inWorker = (options.importer ?? (filename === ":memory:" || filename === "" ? "inline" : "worker")) === "worker";
  log("demo: generating files", { dir: outDir });
  // The import worker loads its modules while the files are written.
  const importer = inWorker ? startImportWorker() : null;
  let demo: DemoReport;
  try {
    // With the import in a worker the caller is a server: generation leaves its thread alone too.
    demo = await generateDemo({ registry: options.registry, outDir, seed: options.seed, now: options.now, scale: options.scale, offThread: inWorker });
  } catch (error) {
    importer?.terminate();
    throw error;
  }
  log("demo: files written", { files: demo.files, bytes: demo.bytes, price_rows: demo.rows.prices, ms: demo.millis });

  const report = importer
    ? await importer.run({ dbPath: filename, paths: [outDir], origin: "demo", source: "demo", registry: options.registry.chains, priority: options.importPriority ?? "normal", fileReports: "problems", onProgress: importProgressLogger("demo", log), onCommitted: options.onCommitted })
    : await importPaths({ db: options.db, registry: options.registry, paths: [outDir], origin: "demo", source: "demo", now: options.now ? () => options.now! : undefined, onCommitted: options.onCommitted });
  log("demo: imported", { status: report.status, files: report.totals.files, rows: report.totals.rows, ms: report.durationMs, data_version: report.dataVersion });
  return { generated: true, report: { demo, import: report } };
}

function dataVersion(db: Database): number {
  const row = db.query("SELECT value FROM meta WHERE key = 'data_version'").get() as { value: string } | null;
  return Number(row?.value ?? 0) || 0;
}
