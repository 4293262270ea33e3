import type { Database } from "bun:sqlite";

/**
 * `BEGIN IMMEDIATE` for a long write transaction whose statement journals stay in memory.
 *
 * Inside a transaction every multi-row write (a batched INSERT, a SAVEPOINT) keeps a copy of each
 * page it changes that existed before it (its statement journal), so that it can be undone alone.
 * With SQLite's default temp store that journal spills to a temporary file past 64 KiB: two
 * `pwrite` calls per page. A first import wrote ≈ 64,000 such pages (261 MB) over 220 stores —
 * the price_history writes, whose sorted rows land on pages all over the table; in memory the
 * importing thread used 7 % less CPU there, 10–22 % less over 880 stores. SQLite decides where a transaction's statement
 * journals go when it begins (the pager reads `temp_store` then), so `temp_store = MEMORY` is set
 * for the BEGIN alone and restored at once: temp tables and the sorter (an index build on helper
 * threads, which a memory temp store turns off) are as before. A journal lives only as long as its
 * statement or savepoint, and holds at most the pages those touch.
 *
 * @example beginWriteInMemoryJournals(db); try { …; db.run("COMMIT"); } catch { db.run("ROLLBACK"); }
 */
export function beginWriteInMemoryJournals(db: Database): void {
  const previous = db.query("PRAGMA temp_store").values()[0]![0] as number;
  db.run("PRAGMA temp_store = MEMORY");
  try {
    db.run("BEGIN IMMEDIATE");
  } finally {
    db.run(`PRAGMA temp_store = ${previous}`);
  }
}
