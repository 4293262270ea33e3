import { Database } from "bun:sqlite";
import { statSync, rmSync } from "node:fs";
import { checkSnapshotFile, readMeta, sha256File } from "./snapshot-file.ts";
import { SnapshotStore, type SnapshotManifest } from "./snapshot-store.ts";

export interface SnapshotJob {
  /** The primary's price database. */
  pricesPath: string;
  /** `<data-dir>/snapshots`. */
  snapshotsDir: string;
  /** Snapshots kept (the newest); older ones are deleted after a new one is published. */
  keep: number;
}

export interface SnapshotResult {
  /** Null when the newest snapshot already holds the current data version (nothing written). */
  manifest: SnapshotManifest | null;
  pruned: number[];
}

/**
 * Writes a snapshot of the current price data: `VACUUM INTO` a temporary file (one consistent
 * read transaction on its own read-only connection: an import committing meanwhile is not in it,
 * and is not blocked by it), checks the copy (`quick_check`), hashes it and publishes it with its
 * manifest. Nothing is written when the newest snapshot already holds the current data version.
 */
export async function writeSnapshot(job: SnapshotJob): Promise<SnapshotResult> {
  const store = new SnapshotStore(job.snapshotsDir);
  const source = new Database(job.pricesPath, { readonly: true, strict: true });
  const temporary = store.temporary();
  try {
    source.run("PRAGMA busy_timeout = 10000");
    const current = readMeta(source).version;
    if (current === 0 || store.latest()?.data_version === current) return { manifest: null, pruned: store.prune(job.keep) };
    // VACUUM INTO reads in one transaction: the copy is consistent, and its own meta rows say
    // which data version it holds (an import committed after the check above may be in it).
    source.run("VACUUM INTO ?", [temporary]);
    const meta = checkSnapshotFile(temporary);
    const manifest: SnapshotManifest = {
      data_version: meta.version,
      data_updated_at: meta.updatedAt,
      source: meta.source,
      size: statSync(temporary).size,
      sha256: await sha256File(temporary),
      created_at: new Date().toISOString(),
    };
    store.publish(temporary, manifest);
    return { manifest, pruned: store.prune(job.keep) };
  } finally {
    source.close();
    rmSync(temporary, { force: true });
  }
}
