import type { DataSet, Pacing } from "../../deps.ts";
import { stmt } from "../../db/statements.ts";
import { israelDate } from "../../lib/time.ts";
import { nextIsraelMidnight } from "../../serving/answer-epoch.ts";
import { AnswerCache, type Answered } from "../../serving/answer-cache.ts";
import { PrebuiltJson } from "../../http/prebuilt/prebuilt-json.ts";
import { storeTable } from "../../pricing/store-table.ts";
import { modeOfCounts } from "../../pricing/rules.ts";
import { PriceCounts } from "../../pricing/price-counts.ts";
import { basketThreshold, indexFromSums, median, priceIndex, BASKET_CHAIN_SHARE, MIN_INDEX_COVERAGE, type ChainPrices } from "../../pricing/price-index.ts";
import { monthsBefore } from "../prices/history.ts";

/** What the index is computed from: the prices database, its per-version tables, the clock (also in a worker, see compute-worker.ts). */
export type IndexData = Pick<DataSet, "db" | "tables" | "now">;

/** Where the index is computed: every store, a region's or a city's (stored names, resolved by the route). */
export interface IndexScope {
  region?: string;
  city?: string;
}

/** The longest history the endpoint answers; computed once per data version and scope, then sliced. */
export const MAX_HISTORY_MONTHS = 24;

export interface PriceIndexEntry {
  chain_id: string;
  chain_name: string;
  index: number | null;
  rank: number | null;
  products: number;
  coverage: number;
  history?: { date: string; index: number | null }[];
}

export interface PriceIndexAnswer {
  json: PrebuiltJson;
  meta: { basket_products: number; chains_with_data: number; basket_min_chains: number; basket_chain_share: number; min_index_coverage: number; from: string | null };
}

/** The chains with prices in a scope (db ids) and their prices of the products that may join its basket. */
interface ScopePrices {
  chains: number[];
  prices: Map<number, ChainPrices>;
}

/**
 * Each chain's price of each shared-GTIN product (generic and chain-internal products are not
 * comparable across chains). Everywhere: the chain price of /prices/ (chain_products.price_mode:
 * the most common shelf price of its stores outside Eilat, Eilat's only where it sells the
 * product nowhere else), read only for the products carried by enough chains to join the basket.
 * In a region or city: the most common shelf price (tie → lower) of the chain's stores there
 * outside Eilat (Eilat's when every store of the scope is in Eilat).
 */
function currentPrices(deps: IndexData, scope: IndexScope): ScopePrices {
  const db = deps.db.prices;
  const out = new Map<number, ChainPrices>();
  const put = (product: number, chain: number, price: number) => {
    let prices = out.get(product);
    if (!prices) out.set(product, (prices = new Map()));
    prices.set(chain, price);
  };
  if (scope.region === undefined && scope.city === undefined) {
    const chains = (stmt(db, "SELECT id FROM chains").values() as [number][])
      .map((r) => r[0])
      .filter((chain) => stmt(db, "SELECT 1 FROM chain_products cp JOIN products p ON p.id = cp.product_id WHERE cp.chain_id = ? AND p.scope_chain_id = 0 LIMIT 1").values(chain).length > 0);
    if (chains.length === 0) return { chains, prices: out };
    // Both served by chain_products_by_product_figures, in its order (no sort); of equal (product,
    // chain) rows (barcode variants) the last, the highest price, is kept, as reading them all did.
    const rows = stmt(
      db,
      `SELECT product_id, chain_id, price_mode FROM chain_products
        WHERE product_id IN (SELECT product_id FROM chain_products GROUP BY product_id
                              HAVING count(DISTINCT chain_id) >= ? AND (SELECT scope_chain_id FROM products WHERE id = product_id) = 0)
        ORDER BY product_id, chain_id, price_mode`,
    ).values(basketThreshold(chains.length)) as [number, number, number][];
    for (const [product, chain, price] of rows) put(product, chain, price);
    return { chains, prices: out };
  }
  const stores = scopeStores(deps, scope);
  if (stores.length === 0) return { chains: [], prices: out };
  const table = storeTable(deps);
  // (product, chain) → price → stores at that price; the chain price is their mode.
  const counts = new Map<number, Map<number, Map<number, number>>>();
  const rows = db
    .query(
      `SELECT pc.product_id, pc.store_id, pc.price FROM price_current pc JOIN products p ON p.id = pc.product_id
        WHERE p.scope_chain_id = 0 AND pc.store_id IN (SELECT value FROM json_each(?))`,
    )
    .values(JSON.stringify(stores)) as [number, number, number][];
  for (const [product, store, price] of rows) {
    const chain = table.chainOf[store]!;
    let byChain = counts.get(product);
    if (!byChain) counts.set(product, (byChain = new Map()));
    let byPrice = byChain.get(chain);
    if (!byPrice) byChain.set(chain, (byPrice = new Map()));
    byPrice.set(price, (byPrice.get(price) ?? 0) + 1);
  }
  for (const [product, byChain] of counts) for (const [chain, byPrice] of byChain) put(product, chain, modeOfCounts(byPrice));
  const chains = new Set<number>();
  for (const byChain of out.values()) for (const chain of byChain.keys()) chains.add(chain);
  return { chains: [...chains], prices: out };
}

/** The db ids of the stores whose prices count in the scope: its stores outside Eilat (all of them when all are in Eilat). */
function scopeStores(deps: IndexData, scope: IndexScope): number[] {
  const table = storeTable(deps);
  const rows = deps.db.prices.query(`SELECT id FROM stores WHERE (?1 IS NULL OR region = ?1) AND (?2 IS NULL OR city = ?2)`).values(scope.region ?? null, scope.city ?? null) as [number][];
  const ids = rows.map((r) => r[0]);
  const outside = ids.filter((id) => !table.eilat[id]);
  return outside.length > 0 ? outside : ids;
}

/** The consecutive dates from `from` to `to` (inclusive), `YYYY-MM-DD`. */
function datesBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`), end = Date.parse(`${to}T00:00:00Z`); t <= end; t += 86_400_000) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/**
 * The index per day from `from` to today over today's common basket, replayed from price_history
 * (change-only rows per store): each day, a chain's price of a product is the most common price
 * among its stores of the scope (outside Eilat) then selling it, after that day's changes; the
 * index of the day is computed as today's from those prices. Cost: one read of each basket
 * product's history in primary key order (store, time: no sort), its rows bucketed by day in
 * typed arrays (stable, so a store's last change of a day wins); each day with changes updates the
 * price counts of the chains whose stores changed and recomputes only their modes, and the chains'
 * contributions only when a chain price moved, kept as per-day deltas (summed at the end).
 */
function dailyIndex(deps: IndexData, scope: IndexScope, chains: number[], basket: number[], from: string, today: string): Map<number, (number | null)[]> {
  const days = datesBetween(from, today);
  const dayOf = new Map(days.map((d, i) => [d, i]));
  const table = storeTable(deps);
  // store → its chain's slot, or -1 when the store's prices do not count in the scope.
  const slotOf = new Int32Array(table.chainOf.length).fill(-1);
  const slot = new Map(chains.map((c, i) => [c, i]));
  for (const id of scope.region === undefined && scope.city === undefined ? nonEilatStores(deps) : scopeStores(deps, scope)) slotOf[id] = slot.get(table.chainOf[id]!) ?? -1;
  const width = days.length + 1;
  const dSum = new Float64Array(chains.length * width);
  const dCount = new Int32Array(chains.length * width);
  // Per product, reused: each store's price (NaN: none), each chain's price → stores count and price.
  const storePrice = new Float64Array(table.chainOf.length).fill(NaN);
  const counts = new PriceCounts(chains.length);
  const chainPrice = new Float64Array(chains.length);
  const contribution = new Float64Array(chains.length);
  const dirty = new Uint8Array(chains.length);
  const prices: number[] = [];
  // The product's rows bucketed by day (day 0 holds every change up to `from`).
  const perDay = new Int32Array(days.length + 1);
  let rowStore = new Int32Array(1024);
  let rowPrice = new Float64Array(1024);
  let rowDay = new Int32Array(1024);
  let order = new Int32Array(1024);
  const read = stmt(deps.db.prices, "SELECT store_id, substr(valid_from, 1, 10), price FROM price_history WHERE product_id = ? ORDER BY store_id, valid_from");
  for (const product of basket) {
    const rows = read.values(product) as [number, string, number | null][];
    if (rows.length > order.length) {
      const size = rows.length * 2;
      [rowStore, rowPrice, rowDay, order] = [new Int32Array(size), new Float64Array(size), new Int32Array(size), new Int32Array(size)];
    }
    perDay.fill(0);
    let n = 0;
    for (let i = 0; i < rows.length; i++) {
      const [store, date, price] = rows[i]!;
      if (slotOf[store]! < 0 || date > today) continue;
      const day = date <= from ? 0 : dayOf.get(date);
      if (day === undefined) continue;
      rowStore[n] = store;
      rowPrice[n] = price ?? NaN;
      rowDay[n] = day;
      perDay[day + 1]!++;
      n++;
    }
    for (let d = 1; d <= days.length; d++) perDay[d]! += perDay[d - 1]!;
    for (let r = 0; r < n; r++) order[perDay[rowDay[r]!]!++] = r;
    // perDay[d] is now where day d's rows end in `order`.
    chainPrice.fill(NaN);
    contribution.fill(NaN);
    counts.clear();
    for (let k = 0, day = 0; k < n; day++) {
      if (k === perDay[day]) continue;
      for (; k < perDay[day]!; k++) {
        const r = order[k]!;
        const store = rowStore[r]!;
        const s = slotOf[store]!;
        const before = storePrice[store]!;
        const after = rowPrice[r]!;
        if (Object.is(before, after)) continue;
        if (!Number.isNaN(before)) counts.remove(s, before);
        if (!Number.isNaN(after)) counts.add(s, after);
        storePrice[store] = after;
        dirty[s] = 1;
      }
      let moved = false;
      for (let s = 0; s < chains.length; s++) {
        if (!dirty[s]) continue;
        dirty[s] = 0;
        const price = counts.mode(s);
        if (!Object.is(price, chainPrice[s])) moved = true;
        chainPrice[s] = price;
      }
      if (moved) record(day);
    }
    for (let r = 0; r < n; r++) storePrice[rowStore[r]!] = NaN;
  }
  // The chains' contributions to the day's sums when their prices are chainPrice (as today's: ln(price ÷ the median chain price)).
  function record(day: number): void {
    prices.length = 0;
    for (let s = 0; s < chains.length; s++) if (!Number.isNaN(chainPrice[s]!)) prices.push(chainPrice[s]!);
    const mid = prices.length > 0 ? median(prices) : NaN;
    for (let s = 0; s < chains.length; s++) {
      const price = chainPrice[s]!;
      const next = Number.isNaN(price) ? NaN : Math.log(price / mid);
      const prev = contribution[s]!;
      if (Object.is(next, prev)) continue;
      const at = s * width + day;
      dSum[at]! += (Number.isNaN(next) ? 0 : next) - (Number.isNaN(prev) ? 0 : prev);
      dCount[at]! += (Number.isNaN(next) ? 0 : 1) - (Number.isNaN(prev) ? 0 : 1);
      contribution[s] = next;
    }
  }
  const series = new Map<number, (number | null)[]>(chains.map((c) => [c, []]));
  const sum = new Map<number, number>();
  const count = new Map<number, number>();
  for (let day = 0; day < days.length; day++) {
    chains.forEach((chain, s) => {
      sum.set(chain, (sum.get(chain) ?? 0) + dSum[s * width + day]!);
      count.set(chain, (count.get(chain) ?? 0) + dCount[s * width + day]!);
    });
    for (const entry of indexFromSums(chains, sum, count, basket.length)) series.get(entry.chainDbId)!.push(entry.index);
  }
  return series;
}

/** Every store outside Eilat (the national history's stores). */
function nonEilatStores(deps: IndexData): number[] {
  const table = storeTable(deps);
  const out: number[] = [];
  for (let id = 1; id < table.chainOf.length; id++) if (table.chainOf[id] && !table.eilat[id]) out.push(id);
  return out;
}

/**
 * GET /api/v1/chains/price-index/: every chain with data in the scope, by rank (unranked chains
 * last, by slug), with its daily history over the last `months` when asked. The 24-month
 * history is computed once per data version and scope and sliced (see cachedPriceIndex).
 */
export function computePriceIndex(deps: IndexData, scope: IndexScope, withHistory: boolean): { entries: PriceIndexEntry[]; basket: number[]; chains: number; from: string | null; dates: string[] } {
  const table = storeTable(deps);
  const { chains: withData, prices } = currentPrices(deps, scope);
  const chains = withData.sort((a, b) => table.chains.get(a)!.slug.localeCompare(table.chains.get(b)!.slug));
  const { basket, chains: indexed } = priceIndex(chains, prices);
  const today = israelDate(deps.now());
  const from = withHistory ? monthsBefore(today, MAX_HISTORY_MONTHS) : null;
  const history = from ? dailyIndex(deps, scope, chains, basket, from, today) : null;
  const entries = indexed
    .sort((a, b) => (a.rank ?? Infinity) - (b.rank ?? Infinity) || chains.indexOf(a.chainDbId) - chains.indexOf(b.chainDbId))
    .map((c): PriceIndexEntry => {
      const chain = table.chains.get(c.chainDbId)!;
      return { chain_id: chain.slug, chain_name: chain.name, index: c.index, rank: c.rank, products: c.products, coverage: c.coverage, ...(history ? { history: [] } : {}) };
    });
  const dates = from ? datesBetween(from, today) : [];
  if (history) {
    entries.forEach((e, k) => {
      const series = history.get(indexed[k]!.chainDbId)!;
      e.history = dates.map((date, d) => ({ date, index: series[d]! }));
    });
  }
  return { entries, basket, chains: chains.length, from, dates };
}

/** A scope's index with its whole 24-month history (when asked), before slicing per `months`. */
export interface FullAnswer {
  entries: PriceIndexEntry[];
  basket: number;
  chains: number;
}

/** computePriceIndex as cached per scope. */
export function fullPriceIndex(deps: IndexData, scope: IndexScope, withHistory: boolean): FullAnswer {
  const { entries, basket, chains } = computePriceIndex(deps, scope, withHistory);
  return { entries, basket: basket.length, chains };
}

/** The cache key of a scope's full computation. */
export function priceIndexScopeKey(scope: IndexScope, withHistory: boolean): string {
  return JSON.stringify([scope.region ?? null, scope.city ?? null, withHistory]);
}

/** The cache key of an answer served. */
export function priceIndexAnswerKey(scope: IndexScope, months: number | undefined): string {
  return JSON.stringify([priceIndexScopeKey(scope, months !== undefined), months ?? null]);
}

declare module "../../deps.ts" {
  interface AnswerCaches {
    /** Per scope: the index and its whole 24-month history. */
    priceIndexFull: AnswerCache<FullAnswer>;
    /** Per scope and `months`: the answer served, serialized once. */
    priceIndex: AnswerCache<PriceIndexAnswer>;
  }
}

/** A data set's price index computations (createServices builds one per data set), a few per scope. */
export function priceIndexComputations(pacing: Pacing): AnswerCache<FullAnswer> {
  return AnswerCache.of<FullAnswer>(pacing, 64 * 2 ** 20, "price_index_full");
}

/** A data set's price index answers (createServices builds one per data set). */
export function priceIndexAnswers(pacing: Pacing): AnswerCache<PriceIndexAnswer> {
  return AnswerCache.of<PriceIndexAnswer>(pacing, 64 * 2 ** 20, "price_index");
}

/**
 * The index of a scope, cached per data version (and, with history, until midnight, when the
 * window moves): the whole 24-month history is computed once per scope and each `months` is a
 * slice of it, serialized once. `computed`: the scope's full computation of the current data
 * version when the caller already has it (computed off the serving thread, see off-thread.ts).
 * @example cachedPriceIndex(deps, {}, 12).value.meta.basket_products // 1840
 */
export function cachedPriceIndex(deps: DataSet, scope: IndexScope, months: number | undefined, computed?: FullAnswer): Answered<PriceIndexAnswer> {
  const withHistory = months !== undefined;
  const scopeKey = priceIndexScopeKey(scope, withHistory);
  const validUntil = () => (withHistory ? nextIsraelMidnight(deps.now().getTime()) : Infinity);
  return deps.answers.priceIndex.get(deps, priceIndexAnswerKey(scope, months), () => {
    // Never the previous version's computation inside this version's answer.
    const full = deps.answers.priceIndexFull.get(
      deps,
      scopeKey,
      () => {
        const value = computed ?? fullPriceIndex(deps, scope, withHistory);
        const weight = value.entries.reduce((w, e) => w + 100 + (e.history?.length ?? 0) * 30, 0);
        return { value, validUntil: validUntil(), weight };
      },
      undefined,
      false,
    ).value;
    const from = months === undefined ? null : monthsBefore(israelDate(deps.now()), months);
    const entries = from === null ? full.entries : full.entries.map((e) => ({ ...e, history: e.history!.filter((p) => p.date >= from) }));
    const json = PrebuiltJson.of(entries);
    const meta = {
      basket_products: full.basket,
      chains_with_data: full.chains,
      basket_min_chains: full.chains > 0 ? basketThreshold(full.chains) : 0,
      basket_chain_share: BASKET_CHAIN_SHARE,
      min_index_coverage: MIN_INDEX_COVERAGE,
      from,
    };
    return { value: { json, meta }, validUntil: validUntil(), weight: json.size };
  });
}
