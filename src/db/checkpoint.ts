import type { Database } from "bun:sqlite";

/**
 * Copies everything in the write-ahead log into the database file and empties the log
 * (`wal_checkpoint(TRUNCATE)`), so `prices.sqlite` alone holds the data — a copy of the file
 * without its `-wal` is complete — and the log does not keep a big import's size on disk.
 * Readers on other connections may hold an older snapshot: the checkpoint waits for them at
 * most `waitMs`, then leaves the rest to SQLite's automatic checkpoints. Cheap after a large
 * commit, which already checkpointed most of the log. Returns true when the log was emptied;
 * false, never an error, when it was not (a failed checkpoint leaves the log whole and valid).
 *
 * @example checkpointWal(db) // → true
 */
export function checkpointWal(db: Database, waitMs = 250): boolean {
  try {
    const previous = (db.query("PRAGMA busy_timeout").values()[0]?.[0] as number | undefined) ?? 0;
    db.run(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(waitMs))}`);
    try {
      const [busy] = (db.query("PRAGMA wal_checkpoint(TRUNCATE)").values()[0] ?? [1]) as number[];
      return busy === 0;
    } finally {
      db.run(`PRAGMA busy_timeout = ${previous}`);
    }
  } catch {
    return false;
  }
}
