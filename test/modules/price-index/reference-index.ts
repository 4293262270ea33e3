/**
 * The price index as computed before its national-size rewrite (service.ts at commit 7928096,
 * verbatim but for names): one history read per basket product sorted by time, every chain's
 * mode recomputed on each day with changes. The oracle the faster computation must equal.
 */
import { MAX_HISTORY_MONTHS, type IndexData, type IndexScope, type PriceIndexEntry } from "../../../src/modules/price-index/service.ts";
import { stmt } from "../../../src/db/statements.ts";
import { israelDate } from "../../../src/lib/time.ts";
import { storeTable } from "../../../src/pricing/store-table.ts";
import { modeOfCounts } from "../../../src/pricing/rules.ts";
import { indexFromSums, median, priceIndex, type ChainPrices } from "../../../src/pricing/price-index.ts";
import { monthsBefore } from "../../../src/modules/prices/history.ts";

/**
 * Each chain's price of each shared-GTIN product (generic and chain-internal products are not
 * comparable across chains). Everywhere: the chain price of /prices/ (chain_products.price_mode:
 * the most common shelf price of its stores outside Eilat, Eilat's only where it sells the
 * product nowhere else). In a region or city: the most common shelf price (tie → lower) of the
 * chain's stores there outside Eilat (Eilat's when every store of the scope is in Eilat).
 */
function currentPrices(deps: IndexData, scope: IndexScope): Map<number, ChainPrices> {
  const db = deps.db.prices;
  const out = new Map<number, ChainPrices>();
  const put = (product: number, chain: number, price: number) => {
    let prices = out.get(product);
    if (!prices) out.set(product, (prices = new Map()));
    prices.set(chain, price);
  };
  if (scope.region === undefined && scope.city === undefined) {
    const rows = stmt(db, "SELECT cp.product_id, cp.chain_id, cp.price_mode FROM chain_products cp JOIN products p ON p.id = cp.product_id WHERE p.scope_chain_id = 0").values() as [number, number, number][];
    for (const [product, chain, price] of rows) put(product, chain, price);
    return out;
  }
  const stores = scopeStores(deps, scope);
  if (stores.length === 0) return out;
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
  return out;
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
 * index of the day is computed as today's from those prices. Cost: one ordered read of each basket
 * product's history; per product, the chains' contributions are recomputed only on days its
 * prices changed and kept as per-day deltas (summed at the end), so a 24-month history of a
 * 2,000-product basket over 30 chains is a few seconds, once per data version and scope.
 */
function dailyIndex(deps: IndexData, scope: IndexScope, chains: number[], basket: number[], from: string, today: string): Map<number, (number | null)[]> {
  const days = datesBetween(from, today);
  const dayOf = new Map(days.map((d, i) => [d, i]));
  const table = storeTable(deps);
  const inScope = new Uint8Array(table.chainOf.length);
  for (const id of scope.region === undefined && scope.city === undefined ? nonEilatStores(deps) : scopeStores(deps, scope)) inScope[id] = 1;
  const slot = new Map(chains.map((c, i) => [c, i]));
  const width = days.length + 1;
  const dSum = new Float64Array(chains.length * width);
  const dCount = new Int32Array(chains.length * width);
  const read = stmt(deps.db.prices, "SELECT store_id, substr(valid_from, 1, 10) AS day, price FROM price_history WHERE product_id = ? AND substr(valid_from, 1, 10) <= ? ORDER BY valid_from, store_id");
  for (const product of basket) {
    const rows = read.values(product, today) as [number, string, number | null][];
    // chain slot → store → price; the chain's price of the product is the mode of its stores' prices.
    const storesOf: Map<number, number>[] = chains.map(() => new Map());
    const contribution = new Float64Array(chains.length).fill(NaN);
    let i = 0;
    const apply = (upTo: string) => {
      let changed = false;
      for (; i < rows.length && rows[i]![1] <= upTo; i++) {
        const [store, , price] = rows[i]!;
        const s = slot.get(table.chainOf[store]!);
        if (s === undefined || !inScope[store]) continue;
        if (price === null) storesOf[s]!.delete(store);
        else storesOf[s]!.set(store, price);
        changed = true;
      }
      return changed;
    };
    const record = (day: number) => {
      const prices: number[] = [];
      const chainPrice = storesOf.map((stores) => {
        if (stores.size === 0) return NaN;
        const counts = new Map<number, number>();
        for (const p of stores.values()) counts.set(p, (counts.get(p) ?? 0) + 1);
        const price = modeOfCounts(counts);
        prices.push(price);
        return price;
      });
      const mid = prices.length > 0 ? median(prices) : NaN;
      chainPrice.forEach((price, s) => {
        const next = Number.isNaN(price) ? NaN : Math.log(price / mid);
        const prev = contribution[s]!;
        if (Object.is(next, prev)) return;
        const at = s * width + day;
        dSum[at]! += (Number.isNaN(next) ? 0 : next) - (Number.isNaN(prev) ? 0 : prev);
        dCount[at]! += (Number.isNaN(next) ? 0 : 1) - (Number.isNaN(prev) ? 0 : 1);
        contribution[s] = next;
      });
    };
    // The state on the window's first day includes every earlier change.
    apply(from);
    record(0);
    for (; i < rows.length; ) {
      const day = dayOf.get(rows[i]![1]);
      const upTo = rows[i]![1];
      if (apply(upTo) && day !== undefined) record(day);
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
export function referencePriceIndex(deps: IndexData, scope: IndexScope, withHistory: boolean): { entries: PriceIndexEntry[]; basket: number[]; chains: number; from: string | null; dates: string[] } {
  const table = storeTable(deps);
  const prices = currentPrices(deps, scope);
  const chainSet = new Set<number>();
  for (const byChain of prices.values()) for (const chain of byChain.keys()) chainSet.add(chain);
  const chains = [...chainSet].sort((a, b) => table.chains.get(a)!.slug.localeCompare(table.chains.get(b)!.slug));
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

