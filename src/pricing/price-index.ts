/**
 * The chain price index, as pure functions (see docs/api.md, "Domain rules"):
 *
 * - The common basket: the shared-GTIN products carried by at least BASKET_CHAIN_SHARE (80 %) of
 *   the chains with data in the scope (the Consumer Council's rule), in product id order.
 * - A chain's index: the geometric mean, over the basket products it carries, of its chain price
 *   ÷ the median chain price of that product (over the chains carrying it), divided by the same
 *   figure of the median chain and ×100 — 100 is the median chain, 90 is 10 % cheaper than it.
 * - coverage = basket products the chain carries ÷ basket products; a chain under
 *   MIN_INDEX_COVERAGE (50 %) is listed without an index or rank (too few products to compare).
 */

/** A product joins the common basket when at least this share of the chains with data carry it. */
export const BASKET_CHAIN_SHARE = 0.8;
/** A chain carrying less than this share of the basket gets no index (null) and no rank. */
export const MIN_INDEX_COVERAGE = 0.5;

/** chain db id → chain price (agorot) of one product. */
export type ChainPrices = Map<number, number>;

export interface ChainIndex {
  chainDbId: number;
  /** Basket products the chain carries. */
  products: number;
  coverage: number;
  /** 100 = the median chain; null below MIN_INDEX_COVERAGE. */
  index: number | null;
  rank: number | null;
}

/** How many chains must carry a product for it to join the basket (at least one). */
export function basketThreshold(chainsWithData: number): number {
  return Math.max(1, Math.ceil(chainsWithData * BASKET_CHAIN_SHARE - 1e-9));
}

/**
 * The common basket: product ids carried by at least basketThreshold(chains) of `chains`, ascending.
 * @example commonBasket(new Map([[1, new Map([[1, 500], [2, 520]])]]), 2) // [1]
 */
export function commonBasket(pricesByProduct: Map<number, ChainPrices>, chainsWithData: number): number[] {
  const need = basketThreshold(chainsWithData);
  return [...pricesByProduct].filter(([, prices]) => prices.size >= need).map(([id]) => id).sort((a, b) => a - b);
}

/** The median of values (not empty): the middle one, or the mean of the two middle ones. */
export function median(values: number[]): number {
  // A typed array sorts numerically without a comparator call per pair (the index calls this per product and day).
  const sorted = Float64Array.from(values).sort();
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Accumulates each chain's log price ratios over basket products: the sums a day's or today's
 * index is computed from (indexFromSums).
 */
export class RatioSums {
  readonly sum = new Map<number, number>();
  readonly count = new Map<number, number>();

  /** Adds one product's chain prices: each chain's ln(price ÷ the product's median chain price). */
  add(prices: ChainPrices): void {
    if (prices.size === 0) return;
    const mid = median([...prices.values()]);
    for (const [chain, price] of prices) {
      this.sum.set(chain, (this.sum.get(chain) ?? 0) + Math.log(price / mid));
      this.count.set(chain, (this.count.get(chain) ?? 0) + 1);
    }
  }
}

/**
 * Each chain's index from its summed log ratios: exp(mean) normalised so that the median chain
 * (among those with enough coverage) is 100, rounded to one decimal; ranked from the cheapest
 * (ties by chain order of `chains`, which callers sort by slug).
 */
export function indexFromSums(chains: number[], sum: Map<number, number>, count: Map<number, number>, basketSize: number): ChainIndex[] {
  const raw = new Map<number, number>();
  for (const chain of chains) {
    const n = count.get(chain) ?? 0;
    if (basketSize > 0 && n / basketSize >= MIN_INDEX_COVERAGE) raw.set(chain, (sum.get(chain) ?? 0) / n);
  }
  const mid = raw.size > 0 ? median([...raw.values()]) : 0;
  const out: ChainIndex[] = chains.map((chainDbId) => {
    const n = count.get(chainDbId) ?? 0;
    const r = raw.get(chainDbId);
    return {
      chainDbId,
      products: n,
      coverage: basketSize > 0 ? Math.round((n / basketSize) * 10_000) / 10_000 : 0,
      index: r === undefined ? null : Math.round(Math.exp(r - mid) * 1000) / 10,
      rank: null,
    };
  });
  const ranked = out.filter((c) => c.index !== null).sort((a, b) => a.index! - b.index! || chains.indexOf(a.chainDbId) - chains.indexOf(b.chainDbId));
  ranked.forEach((c, i) => (c.rank = i + 1));
  return out;
}

/**
 * The index of every chain of `chains` over the common basket of `pricesByProduct`.
 * @example priceIndex([1, 2, 3], prices).find((c) => c.chainDbId === 1)?.index // 96.2
 */
export function priceIndex(chains: number[], pricesByProduct: Map<number, ChainPrices>): { basket: number[]; chains: ChainIndex[] } {
  const basket = commonBasket(pricesByProduct, chains.length);
  const sums = new RatioSums();
  for (const id of basket) sums.add(pricesByProduct.get(id)!);
  return { basket, chains: indexFromSums(chains, sums.sum, sums.count, basket.length) };
}
