import { rmSync } from "node:fs";
import { openDatabase } from "../db/open.ts";
import { israelDate } from "../lib/time.ts";
import { ExportStore } from "./store.ts";
import { writeExport, type Manifest } from "./write.ts";

export interface ExportJob {
  /** The prices database file (`<data-dir>/prices.sqlite`). */
  dbPath: string;
  /** The exports folder (`<data-dir>/exports`). */
  exportsDir: string;
  /** Exports kept (MEHIR_EXPORT_DAYS). */
  keepDays: number;
}

/**
 * Writes the export of the data current now as its date's export (replacing an earlier one of
 * that date), then deletes exports past `keepDays`. Reads on its own read-only connection, in one
 * read transaction: never the import's write lock. Null when nothing was imported yet.
 */
export async function runExport(job: ExportJob, now = new Date()): Promise<{ manifest: Manifest | null; pruned: string[] }> {
  const store = new ExportStore(job.exportsDir);
  const db = openDatabase(job.dbPath, [], { readonly: true });
  const dir = store.temporary();
  try {
    const manifest = await writeExport(db, dir, now);
    if (!manifest) {
      rmSync(dir, { recursive: true, force: true });
      return { manifest: null, pruned: store.prune(job.keepDays, israelDate(now)) };
    }
    store.publish(dir, manifest.date);
    return { manifest, pruned: store.prune(job.keepDays, israelDate(now)) };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  } finally {
    db.close();
  }
}
