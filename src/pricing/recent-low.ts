import type { PricingData } from "../deps.ts";
import { stmt } from "../db/statements.ts";
import { israelDate } from "../lib/time.ts";
import { storeLocations } from "./locations.ts";
import { chainSeries, genericChanges, type HistoryRow } from "./price-series.ts";
import type { StoreFilter } from "./queries.ts";
import { storeTable } from "./store-table.ts";

/** The window of `lowest_price_30d_ils`: the 30 days before today (Israel time). */
export const RECENT_LOW_DAYS = 30;

/**
 * `YYYY-MM-DD` minus whole days.
 * @example daysBefore("2026-03-01", 30) // "2026-01-30"
 */
export function daysBefore(date: string, days: number): string {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d - days)).toISOString().slice(0, 10);
}

/** The lowest shelf prices of a product in the window, in agorot: per store (db id) and per chain (db id). */
export interface RecentLows {
  byStore: Map<number, number>;
  byChain: Map<number, number>;
}

/**
 * The lowest shelf price of a product in the 30 days before today — the rule shoppers know from
 * the EU's price rules: the reference beside a promotion. Per store: the lowest of the prices in
 * effect at any moment of the window (the one in effect when it opened included). Per chain: the
 * lowest of the chain's daily prices as the history endpoint gives them (the chain price — its
 * stores' most common shelf price, outside Eilat — on the window's first day and on each day it
 * changed), so the figure is the minimum of `/prices/{barcode}/history/` over the same days.
 * With a store filter (city, region, chains, stores near a point) only those stores count.
 * Generic products fold their members' rows as the history does.
 *
 * @example recentLows(deps, product.id, false, new Date(), {}).byChain.get(chainId) // 1190
 */
export function recentLows(deps: PricingData, productId: number, generic: boolean, now: Date, filter: StoreFilter): RecentLows {
  const from = daysBefore(israelDate(now), RECENT_LOW_DAYS);
  // Rows from the window's first day, and for each store the row in effect before it (SQLite
  // takes a bare column from the row that gives max()).
  const raw: [number, string, number | null][] = generic
    ? genericChanges(
        stmt(
          deps.db.prices,
          `SELECT ph.product_id, ph.store_id, ph.valid_from, ph.price FROM generic_members gm JOIN price_history ph ON ph.product_id = gm.product_id
            WHERE gm.generic_id = ? ORDER BY ph.store_id, ph.valid_from`,
        ).values(productId) as [number, number, string, number | null][],
      )
    : (stmt(
        deps.db.prices,
        `SELECT store_id, valid_from, price FROM price_history WHERE product_id = ?1 AND valid_from >= ?2
         UNION ALL
         SELECT store_id, max(valid_from), price FROM price_history WHERE product_id = ?1 AND valid_from < ?2 GROUP BY store_id`,
      ).values(productId, from) as [number, string, number | null][]);
  const table = storeTable(deps);
  const keep = storeFilterTest(deps, filter);
  const byStore = new Map<number, number>();
  const rowsByChain = new Map<number, HistoryRow[]>();
  // Per store, the rows before the window's first day matter only as the state it opens with.
  const opening = new Map<number, [string, number | null]>();
  for (const [storeId, validFrom, price] of raw) {
    const chain = storeId < table.chainOf.length ? table.chainOf[storeId]! : 0;
    if (chain === 0 || !keep(storeId, chain)) continue;
    if (validFrom.slice(0, 10) < from) {
      const held = opening.get(storeId);
      if (!held || held[0] < validFrom) opening.set(storeId, [validFrom, price]);
      continue;
    }
    add(storeId, chain, validFrom, price);
  }
  for (const [storeId, [validFrom, price]] of opening) add(storeId, table.chainOf[storeId]!, validFrom, price);

  function add(storeId: number, chain: number, validFrom: string, price: number | null) {
    if (price !== null) {
      const low = byStore.get(storeId);
      if (low === undefined || price < low) byStore.set(storeId, price);
    }
    const names = table.chains.get(chain)!;
    const row: HistoryRow = { store_id: storeId, valid_from: validFrom, price, chain_slug: names.slug, chain_name: names.name, city: table.eilat[storeId] ? "אילת" : null };
    const list = rowsByChain.get(chain);
    if (list) list.push(row);
    else rowsByChain.set(chain, [row]);
  }

  const byChain = new Map<number, number>();
  for (const [chain, rows] of rowsByChain) {
    rows.sort((a, b) => (a.valid_from < b.valid_from ? -1 : a.valid_from > b.valid_from ? 1 : a.store_id - b.store_id));
    let low = Infinity;
    for (const point of chainSeries(rows, from)) if (point.price < low) low = point.price;
    if (low !== Infinity) byChain.set(chain, low);
  }
  return { byStore, byChain };
}

/** Whether a store (db id, chain db id) passes a store filter; the per-version tables answer it without SQL. */
function storeFilterTest(deps: PricingData, filter: StoreFilter): (storeId: number, chain: number) => boolean {
  const { chainId, chainIds, city, region, storeIds } = filter;
  if (!chainId && !chainIds && !city && !region && !storeIds) return () => true;
  const locations = storeLocations(deps).byId;
  const ids = storeIds ? new Set(storeIds) : null;
  const slugs = chainIds ? new Set(chainIds) : null;
  return (storeId) => {
    const s = locations.get(storeId);
    if (!s) return false;
    if (chainId && s.chainSlug !== chainId) return false;
    if (slugs && !slugs.has(s.chainSlug)) return false;
    if (city && s.city !== city) return false;
    if (region && s.region !== region) return false;
    return !ids || ids.has(storeId);
  };
}
