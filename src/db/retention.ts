import type { Database } from "bun:sqlite";
import { israelDate, monthsBefore } from "../lib/time.ts";

/**
 * What the prices database keeps, and the pruning that enforces it after every import
 * (src/ingest/import.ts, right after the run's report). Documented in the README ("Retention").
 *
 * - price_history: MEHIR_HISTORY_MONTHS months (default 25: the 24 the API serves plus a month
 *   of margin). For each product and store the row in effect at the window's start is kept, so
 *   the first day of any window inside it is still answered; a row older than that is removed,
 *   and so is one in effect that says "no longer sold" (absence says the same).
 * - promotions that ended more than ENDED_PROMOTION_DAYS ago, with their item lists and store links
 *   (the API serves only active ones).
 * - import_files (each file's note, rejected files' reasons included) after RUN_FILE_DAYS, and
 *   import_runs after RUN_DAYS (the newest run is always kept).
 */
export const DEFAULT_HISTORY_MONTHS = 25;
export const ENDED_PROMOTION_DAYS = 30;
export const RUN_FILE_DAYS = 30;
export const RUN_DAYS = 180;

/**
 * Days the window's start moves between two passes over the history: a pass reads the whole table
 * (its key is product first), ~7 s per 12 million rows on a loaded 2-core machine, so it runs weekly;
 * history then holds at most this many days beyond the window (~1 % at 25 months).
 */
export const HISTORY_PASS_EVERY_DAYS = 7;
/** Products per history delete: each statement walks this many products' rows by primary key. */
const HISTORY_BATCH_PRODUCTS = 2_000;
/** Promotions per delete of ended ones (with their lists and links). */
const PROMOTION_BATCH = 500;

export interface RetentionPolicy {
  historyMonths: number;
}

export interface PruneOptions {
  /**
   * price_history holds at most one row per product and store, each with a price (an import's
   * first run into an empty table, see LoadSession.historyOneRowEach): its pass has nothing to
   * remove, so the walk is left out and only recorded as done.
   */
  historyOneRowEach?: boolean;
}

export interface PruneResult {
  /** The first day of the kept history window (`YYYY-MM-DD`), or null when history was not walked (its last pass is recent). */
  historyFrom: string | null;
  historyRows: number;
  promotions: number;
  runs: number;
  runFiles: number;
  ms: number;
}

const DAY_MS = 86_400_000;

/**
 * Removes what the policy no longer keeps, in short transactions of bounded size (readers on other
 * connections are never blocked; another writer waits at most one batch). History is walked when
 * the window's start has moved HISTORY_PASS_EVERY_DAYS past the last pass (`meta.history_kept_from`),
 * or the setting shortened the window, so the many runs of a day or a week cost one pass (a
 * history with one priced row per product and store has nothing to remove: `options`).
 *
 * @example pruneDatabase(db, { historyMonths: 25 }, new Date()) // { historyFrom: "2024-10-22", historyRows: 183211, … }
 */
export function pruneDatabase(db: Database, policy: RetentionPolicy, now: Date, options: PruneOptions = {}): PruneResult {
  const started = performance.now();
  const from = monthsBefore(israelDate(now), policy.historyMonths);
  const done = (db.query("SELECT value FROM meta WHERE key = 'history_kept_from'").get() as { value: string } | null)?.value;
  const due = done === undefined || Date.parse(from) - Date.parse(done) >= HISTORY_PASS_EVERY_DAYS * DAY_MS;
  // One row with a price per product and store is the row in effect, kept whatever its age.
  const historyRows = due && !options.historyOneRowEach ? pruneHistory(db, from) : 0;
  if (due) db.run("INSERT INTO meta (key, value) VALUES ('history_kept_from', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [from]);
  const promotions = pruneEndedPromotions(db, israelDate(new Date(now.getTime() - ENDED_PROMOTION_DAYS * DAY_MS)));
  const { runs, runFiles } = pruneRuns(db, now);
  return { historyFrom: due ? from : null, historyRows, promotions, runs, runFiles, ms: Math.round(performance.now() - started) };
}

/**
 * Deletes the price_history rows before `from` (a `YYYY-MM-DD` Israel date) except, per product and
 * store, the newest one when it holds a price. Walks the primary key (product, store, date) in
 * product ranges; one transaction per range. Returns the rows deleted.
 */
export function pruneHistory(db: Database, from: string): number {
  const max = (db.query("SELECT max(product_id) AS id FROM price_history").get() as { id: number | null }).id;
  if (max === null) return 0;
  // Text order is time order within one zone rule: `2024-10-22T…` sorts after `2024-10-22`, so
  // every row of the window's first day is kept.
  const remove = db.prepare(
    `DELETE FROM price_history
      WHERE product_id >= ?1 AND product_id < ?2 AND valid_from < ?3
        AND (price IS NULL OR EXISTS (
              SELECT 1 FROM price_history later
               WHERE later.product_id = price_history.product_id AND later.store_id = price_history.store_id
                 AND later.valid_from > price_history.valid_from AND later.valid_from < ?3))`,
  );
  let deleted = 0;
  for (let low = 0; low <= max; low += HISTORY_BATCH_PRODUCTS) {
    deleted += inTransaction(db, () => remove.run(low, low + HISTORY_BATCH_PRODUCTS, from).changes);
  }
  return deleted;
}

/** Deletes promotions that ended before `before` (`YYYY-MM-DD`), with their item lists and store links. */
export function pruneEndedPromotions(db: Database, before: string): number {
  const pick = db.prepare("SELECT id FROM promotions WHERE ends_at IS NOT NULL AND ends_at < ? LIMIT ?");
  const lists = db.prepare("SELECT list_id FROM promotion_lists WHERE promotion_id = ?");
  const dropItems = db.prepare("DELETE FROM promotion_items WHERE list_id = ?");
  const dropItemsOf = db.prepare("DELETE FROM promotion_items WHERE promotion_id = ?");
  const dropLists = db.prepare("DELETE FROM promotion_lists WHERE promotion_id = ?");
  const dropStores = db.prepare("DELETE FROM promotion_stores WHERE promotion_id = ?");
  const dropPromotion = db.prepare("DELETE FROM promotions WHERE id = ?");
  let deleted = 0;
  for (;;) {
    const ids = pick.values(before, PROMOTION_BATCH) as [number][];
    if (ids.length === 0) return deleted;
    inTransaction(db, () => {
      for (const [id] of ids) {
        for (const [list] of lists.values(id) as [number][]) dropItems.run(list);
        dropItemsOf.run(id);
        dropLists.run(id);
        dropStores.run(id);
        dropPromotion.run(id);
      }
    });
    deleted += ids.length;
  }
}

/** Deletes per-file notes older than RUN_FILE_DAYS and runs older than RUN_DAYS (never the newest run). */
export function pruneRuns(db: Database, now: Date): { runs: number; runFiles: number } {
  const filesBefore = israelDate(new Date(now.getTime() - RUN_FILE_DAYS * DAY_MS));
  const runsBefore = israelDate(new Date(now.getTime() - RUN_DAYS * DAY_MS));
  return inTransaction(db, () => {
    const newest = "(SELECT max(id) FROM import_runs)";
    const runFiles = db.run(
      `DELETE FROM import_files WHERE run_id IN (SELECT id FROM import_runs WHERE started_at < ? AND id < ${newest})`,
      [filesBefore],
    ).changes;
    // A run's files (import_files.run_id references it) went above: RUN_FILE_DAYS < RUN_DAYS.
    const runs = db.run(`DELETE FROM import_runs WHERE started_at < ? AND id < ${newest}`, [runsBefore]).changes;
    return { runs, runFiles };
  });
}

function inTransaction<T>(db: Database, work: () => T): T {
  return db.transaction(work).immediate();
}
