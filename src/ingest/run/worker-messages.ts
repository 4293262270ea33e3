import type { ImportOrigin, ImportReport } from "./report.ts";

/** What runImportInWorker sends the import worker (structured-clone safe). */
export interface WorkerRequest {
  dbPath: string;
  paths: string[];
  origin: ImportOrigin;
  source: "demo" | "live";
  maxFileBytes?: number;
  /** What the run's `.zip` archives may unpack (MEHIR_IMPORT_MAX_*_BYTES). */
  archiveLimits?: Partial<import("./collect.ts").ArchiveLimits>;
  replaceSource?: boolean;
  /** Months of price history kept (MEHIR_HISTORY_MONTHS). */
  historyMonths?: number;
  /** The registry's raw chain list (data/chains.json shape); default: the embedded one. */
  registry?: unknown;
  /** CPU priority of the import thread (default idle). */
  priority?: import("./import-priority.ts").ImportPriority;
  /**
   * Which files' reports the reply carries: `all` (default), or `problems` — only the files not
   * imported as they were (rejected, partial, skipped). Every file's report is in `import_files`
   * either way; a demo's 2,920 reports took the receiving (serving) thread tens of milliseconds
   * to copy in.
   */
  fileReports?: "all" | "problems";
}

export type WorkerReply =
  | { kind: "progress"; done: number; total: number; file: string }
  /** The run's transaction is committed (sent before its report is written and the log checkpointed). */
  | { kind: "committed"; dataVersion: number }
  | { kind: "done"; report: ImportReport }
  | { kind: "error"; message: string };
