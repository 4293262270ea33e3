import type { DataSet, Pacing, PricingData } from "../../deps.ts";
import { stmt } from "../../db/statements.ts";
import { formatIls, israelDate } from "../../lib/time.ts";
import { nextIsraelMidnight } from "../../serving/answer-epoch.ts";
import { PrebuiltJson } from "../../http/prebuilt/prebuilt-json.ts";
import { barcodeKey, type ProductRow } from "../../pricing/queries.ts";
import { AnswerCache, type Answered } from "../../serving/answer-cache.ts";
import { chainSeries, genericChanges, type HistoryRow } from "../../pricing/price-series.ts";
import { requireProduct } from "./service.ts";
import { GENERIC_SCOPE } from "../../identity/resolve.ts";
import { storeTable } from "../../pricing/store-table.ts";

export { genericChanges } from "../../pricing/price-series.ts";

export interface HistoryRecord {
  chain_id: string;
  chain_name: string;
  price_ils: string;
  date: string;
}

import { monthsBefore } from "../../lib/time.ts";
export { monthsBefore };

/**
 * A product's change rows from the window's first day `from` on, and each store's last row before
 * it (the price in effect when the window opens: all chainSeries needs of the earlier ones, and
 * the same stores, so the Eilat rule sees the same cities). An answer then reads what its window
 * holds, not every month the database keeps. SQLite gives a bare column the values of the max()
 * row.
 */
const WINDOW_ROWS = `SELECT store_id, valid_from, price FROM price_history WHERE product_id = ?1 AND valid_from >= ?2
  UNION ALL
  SELECT store_id, max(valid_from), price FROM price_history WHERE product_id = ?1 AND valid_from < ?2 GROUP BY store_id`;

/**
 * A product's change rows, by chain (slug), then date, then store. Read from the table's primary
 * key (product, store, date) without joins and grouped here with the per-version store table; the
 * SQL join and sort is kept for stores the table does not know yet.
 */
function historyRows(deps: PricingData, productId: number, generic: boolean, from: string): HistoryRow[] {
  const table = storeTable(deps);
  const raw = generic
    ? genericChanges(
        stmt(
          deps.db.prices,
          `SELECT ph.product_id, ph.store_id, ph.valid_from, ph.price FROM generic_members gm JOIN price_history ph ON ph.product_id = gm.product_id
            WHERE gm.generic_id = ? ORDER BY ph.store_id, ph.valid_from`,
        ).values(productId) as [number, number, string, number | null][],
      )
    : (stmt(deps.db.prices, WINDOW_ROWS).values(productId, from) as [number, string, number | null][]);
  const rows: HistoryRow[] = [];
  for (const [storeId, validFrom, price] of raw) {
    const chain = storeId < table.chainOf.length ? table.chainOf[storeId]! : 0;
    if (chain === 0) return generic ? [] : joinedHistoryRows(deps, productId);
    const names = table.chains.get(chain)!;
    rows.push({ store_id: storeId, valid_from: validFrom, price, chain_slug: names.slug, chain_name: names.name, city: table.eilat[storeId] ? EILAT : null });
  }
  return rows.sort((a, b) => (a.chain_slug < b.chain_slug ? -1 : a.chain_slug > b.chain_slug ? 1 : a.valid_from < b.valid_from ? -1 : a.valid_from > b.valid_from ? 1 : a.store_id - b.store_id));
}

// chainSeries only asks whether a store is in Eilat.
const EILAT = "אילת";

function joinedHistoryRows(deps: PricingData, productId: number): HistoryRow[] {
  return stmt(
    deps.db.prices,
    `SELECT ph.store_id, ph.valid_from, ph.price, c.slug AS chain_slug, c.name AS chain_name, s.city
       FROM price_history ph
       JOIN stores s ON s.id = ph.store_id
       JOIN chains c ON c.id = s.chain_id
      WHERE ph.product_id = ?
      ORDER BY c.slug, ph.valid_from, ph.store_id`,
  ).all(productId) as HistoryRow[];
}

/** GET /api/v1/prices/{barcode}/history/: change points per chain within the window. */
export function priceHistory(deps: PricingData & Pick<DataSet, "now">, barcode: string, months: number, chainId?: string) {
  const product = requireProduct(deps, barcode, chainId);
  const today = israelDate(deps.now());
  const from = monthsBefore(today, months);
  const rows = historyRows(deps, product.id, product.scope_chain_id === GENERIC_SCOPE, from);
  const history: HistoryRecord[] = [];
  let start = 0;
  while (start < rows.length) {
    let end = start;
    while (end < rows.length && rows[end]!.chain_slug === rows[start]!.chain_slug) end++;
    const chainRows = rows.slice(start, end);
    const first = chainRows[0]!;
    if (!chainId || first.chain_slug === chainId) {
      for (const point of chainSeries(chainRows, from)) {
        history.push({ chain_id: first.chain_slug, chain_name: first.chain_name, price_ils: formatIls(point.price), date: point.date });
      }
    }
    start = end;
  }
  return { product, from, history };
}

export interface HistoryAnswer {
  product: ProductRow;
  from: string;
  history: HistoryRecord[];
  /** The route's `data`, serialized once. */
  json: PrebuiltJson;
}

/**
 * A data set's history answers (createServices builds one per data set): a popular product's history reads thousands of change rows, and the
 * answer only changes with the data version or when the Israel date (the window) moves on.
 */
export function historyAnswers(pacing: Pacing): AnswerCache<HistoryAnswer> {
  return AnswerCache.of<HistoryAnswer>(pacing, 20_000, "history");
}

declare module "../../deps.ts" {
  interface AnswerCaches {
    history: AnswerCache<HistoryAnswer>;
  }
}

/**
 * priceHistory, cached until the data version changes or the day ends; with the route's data
 * serialized, and the data it reflects (see AnswerCache).
 */
export function cachedPriceHistory(deps: DataSet, barcode: string, months: number, chainId?: string): Answered<HistoryAnswer> {
  const cache = deps.answers.history;
  const key = JSON.stringify([barcodeKey(barcode), months, chainId ?? null]);
  return cache.get(deps, key, () => {
    const now = deps.now();
    const { product, from, history } = priceHistory(deps, barcode, months, chainId);
    const answer: HistoryAnswer = { product, from, history, json: PrebuiltJson.of({ barcode: product.barcode, name: product.name, history }) };
    return { value: answer, validUntil: nextIsraelMidnight(now.getTime()), weight: history.length + 1 };
  });
}
