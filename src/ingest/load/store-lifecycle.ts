import type { Database } from "bun:sqlite";
import type { HistoryBuffer } from "./history.ts";
import type { PriceStatements } from "./prices.ts";
import type { PromotionStatements } from "./promos.ts";

export interface ClosingResult {
  /** Stores closed by this list. */
  closed: number;
  /** Why nothing was closed although stores were missing (the list is taken as partial), else null. */
  partialReason: string | null;
}

interface OpenStore {
  id: number;
  chain_code: string;
  sub_chain_code: string | null;
  store_code: string;
  listed_at: string | null;
  prices_at: string | null;
  promos_at: string | null;
}

/**
 * A full Stores list is the chain's whole list: each open store of the chain (under the chain
 * codes and sub-chains the list covers; a store of no known sub-chain is covered) that it leaves out is closed at the list's time — when the list is newer
 * than the store's last listing (or, for a store no list has named yet, than its newest price or
 * promotion file). A closed store keeps its row and history; its current prices are removed (a
 * history row with price NULL marks the end) and its promotion links dropped, so it is no longer
 * counted or priced. It opens again when a later list names it (loadStores).
 *
 * A list naming fewer than half of the chain's open stores under those codes is taken as partial
 * (a chain publishing its online store in a list of its own, a cut file): it updates what it
 * lists and closes nothing.
 *
 * @example closeMissingStores(db, { chainId: 2, codes, listed, time, prices, history, promos })
 * // → { closed: 1, partialReason: null }
 */
export function closeMissingStores(
  db: Database,
  run: {
    chainId: number;
    codes: Set<string>;
    subChains: Set<string>;
    listed: Set<string>;
    time: string;
    prices: PriceStatements;
    history: HistoryBuffer;
    promos: PromotionStatements;
  },
): ClosingResult {
  const open = (
    db
      .query("SELECT id, chain_code, sub_chain_code, store_code, listed_at, prices_at, promos_at FROM stores WHERE chain_id = ? AND closed_at IS NULL")
      .all(run.chainId) as OpenStore[]
  ).filter((s) => run.codes.has(s.chain_code) && (s.sub_chain_code === null || run.subChains.has(s.sub_chain_code)));
  const at = Date.parse(run.time);
  const missing = open.filter((s) => {
    if (run.listed.has(`${s.chain_code}-${s.store_code}`)) return false;
    const seen = s.listed_at ?? [s.prices_at, s.promos_at].filter((t): t is string => t !== null).sort((a, b) => Date.parse(b) - Date.parse(a))[0] ?? null;
    return seen === null || Date.parse(seen) < at;
  });
  if (missing.length === 0) return { closed: 0, partialReason: null };
  const listedOpen = open.length - missing.length;
  if (listedOpen * 2 < open.length) {
    return { closed: 0, partialReason: `lists ${listedOpen} of the chain's ${open.length} open stores: taken as a partial list, no store closed` };
  }
  closeStores(db, missing, run.time, run);
  return { closed: missing.length, partialReason: null };
}

/** How long a store can show no sign of life (no list naming it, no price or promotion file) before its chain's newest full Stores list closes it. */
export const SILENT_STORE_MS = 30 * 24 * 3600 * 1000;

/**
 * A chain publishing under several codes (Carrefour: three) can stop publishing under one: its
 * last Stores list, years old, would keep all its stores open. After a full Stores list of the
 * chain, each open store of the chain — under any code — whose newest sign of life (a list naming
 * it, a price or promotion file) is more than SILENT_STORE_MS older than the chain's newest full
 * list is closed at that list's time. A store that moved to another code is listed there, under
 * its new code, and stays open as that row. The chain's newest list is read from the stores, not
 * the file just loaded, so an old list imported after a newer one closes what it opened.
 *
 * @example closeSilentStores(db, { chainId: 3, prices, history, promos }) // → 230
 */
export function closeSilentStores(
  db: Database,
  run: { chainId: number; prices: PriceStatements; history: HistoryBuffer; promos: PromotionStatements },
): number {
  const open = db
    .query("SELECT id, chain_code, sub_chain_code, store_code, listed_at, prices_at, promos_at FROM stores WHERE chain_id = ? AND closed_at IS NULL")
    .all(run.chainId) as OpenStore[];
  // ISO times with the chains' offsets (+02:00/+03:00): compared as instants, not as strings.
  let newest: string | null = null;
  for (const [t] of db.query("SELECT DISTINCT listed_at FROM stores WHERE chain_id = ? AND listed_at IS NOT NULL").values(run.chainId) as [string][]) {
    if (newest === null || Date.parse(t) > Date.parse(newest)) newest = t;
  }
  if (newest === null) return 0;
  const at = (t: string | null) => (t === null ? Number.NEGATIVE_INFINITY : Date.parse(t));
  const silent = open.filter((s) => Math.max(at(s.listed_at), at(s.prices_at), at(s.promos_at)) < Date.parse(newest) - SILENT_STORE_MS);
  if (silent.length === 0) return 0;
  closeStores(db, silent, newest, run);
  return silent.length;
}

/** Closes `stores` at `time`: their current prices end (a history row with price NULL) and their promotion links go. */
function closeStores(
  db: Database,
  stores: OpenStore[],
  time: string,
  run: { prices: PriceStatements; history: HistoryBuffer; promos: PromotionStatements },
): void {
  const close = db.prepare("UPDATE stores SET closed_at = ? WHERE id = ?");
  const products = db.prepare("SELECT product_id FROM price_current WHERE store_id = ?");
  const dropPrices = db.prepare("DELETE FROM price_current WHERE store_id = ?");
  const lists = db.prepare("SELECT list_id FROM promotion_stores WHERE store_id = ?");
  const dropLinks = db.prepare("DELETE FROM promotion_stores WHERE store_id = ?");
  const timeId = run.history.timeId(time);
  for (const store of stores) {
    close.run(time, store.id);
    for (const [productId] of products.values(store.id) as [number][]) {
      run.history.addAt(productId, store.id, timeId, null);
      run.prices.touched.add(productId);
    }
    dropPrices.run(store.id);
    run.prices.known.forget(store.id);
    for (const [list] of lists.values(store.id) as [number][]) run.promos.released.add(list);
    dropLinks.run(store.id);
  }
}
