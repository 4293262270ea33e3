import type { PruneResult } from "../../db/retention.ts";
import type { Database } from "bun:sqlite";
import type { FileOutcome } from "../load/types.ts";
import type { SessionTimings } from "../load/session.ts";

export type ImportOrigin = "cli" | "demo" | "fetch" | "backfill";

/** One file of a run: where it was, its size, and what the loader did with it. */
export interface FileReport extends FileOutcome {
  path: string;
  fileName: string;
  bytes: number;
}

export interface ImportTotals {
  files: number;
  ok: number;
  partial: number;
  rejected: number;
  skipped: number;
  /** Files whose data is now in the database (ok, or partial with rows). */
  imported: number;
  /** Records loaded: stores + price rows + promotions. */
  rows: number;
  priceRows: number;
}

export interface ImportReport {
  /** `import_runs.id`; null when even the report could not be written. */
  runId: number | null;
  origin: ImportOrigin;
  source: "demo" | "live";
  /** ok: every file loaded; partial: some were rejected or cut short; failed: nothing was committed. */
  status: "ok" | "partial" | "failed";
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /** The committed data version; null when nothing was committed. */
  dataVersion: number | null;
  /** True when the previous price data was deleted first (source switch). */
  replaced: boolean;
  /** Per file: `counts` holds the loader's figures and the cases of what was not used (see docs/api.md, "Import report"). */
  files: FileReport[];
  totals: ImportTotals;
  error: string | null;
  /** Milliseconds: reading files, decompressing and parsing them, then the database phases. */
  timings: { read: number; parse: number } & SessionTimings;
  /** What the retention policy removed after the run (src/db/retention.ts), and the pages given back; absent when nothing was committed. */
  pruned?: PruneResult & { reclaimedPages: number };
}

/**
 * Sums a run's file reports.
 * @example totalsOf(report.files) // { files: 3, ok: 2, partial: 0, rejected: 1, skipped: 0, imported: 2, rows: 7012, priceRows: 7000 }
 */
export function totalsOf(files: FileReport[]): ImportTotals {
  const totals: ImportTotals = { files: files.length, ok: 0, partial: 0, rejected: 0, skipped: 0, imported: 0, rows: 0, priceRows: 0 };
  for (const f of files) {
    totals[f.status]++;
    if (f.status === "ok" || (f.status === "partial" && !f.zeroRows)) totals.imported++;
    if (f.status === "ok" || f.status === "partial") {
      totals.rows += f.rows;
      if (f.type === "pricefull" || f.type === "price") totals.priceRows += f.rows;
    }
  }
  return totals;
}

/**
 * Writes a run's report rows (`import_runs`, `import_files`) in a transaction of their own,
 * after the data commit (or after a failed run). Returns the run id.
 * @example saveRunReport(db, report) // → 12
 */
export function saveRunReport(db: Database, report: Omit<ImportReport, "runId">): number {
  return db.transaction(() => {
    const { id } = db
      .query(
        `INSERT INTO import_runs (started_at, finished_at, duration_ms, origin, status, files, rows, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      )
      .get(report.startedAt, report.finishedAt, Math.round(report.durationMs), report.origin, report.status, report.totals.files, report.totals.rows, report.error) as { id: number };
    const insert = db.prepare(
      `INSERT INTO import_files (run_id, file_name, file_type, chain_code, chain_slug, store_code, file_time, bytes, rows, status, reason)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const f of report.files) {
      const reason = [f.reason, ...f.warnings].filter(Boolean).join("; ") || null;
      insert.run(id, f.fileName, f.type, f.chainCode, f.chainSlug, f.storeCode, f.fileTime, f.bytes, f.rows, f.status, reason);
    }
    return id;
  })();
}
