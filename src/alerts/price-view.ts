import type { AppDeps } from "../app.ts";
import { chainSummary } from "../modules/prices/chain-summary.ts";
import { findProduct, type ProductRow } from "../modules/prices/queries.ts";

/** What an alert watches: a product (barcode, with its chain for a chain-internal code), optionally some chains and a city. */
export interface AlertTarget {
  barcode: string;
  chainId: string | null;
  chainIds: string[];
  city: string | null;
}

/** One chain's figures for the alert, in agorot (as /prices/ computes them at chain granularity). */
export interface ChainPrice {
  chainId: string;
  chainName: string;
  shelf: number;
  effective: number;
  storeCount: number;
}

export interface PriceView {
  product: ProductRow | null;
  chains: ChainPrice[];
}

/** The key of targets priced alike (alerts on the same product and scope share one computation). */
export function targetKey(t: AlertTarget): string {
  return JSON.stringify([t.barcode.replace(/^0+(?=\d)/, ""), t.chainId, t.city]);
}

/**
 * The chain figures /prices/ shows for the target's product (the same pricing code: chain price =
 * most common shelf price, effective = after the best single-unit promotion open to all), over the
 * stores of `city` when set; chain_ids narrowing is applied by the caller (filterChains). A product
 * no chain sells any more gives no chains.
 */
export function priceView(deps: AppDeps, target: AlertTarget, now: Date): PriceView {
  const product = findProduct(deps.db.prices, target.barcode, target.chainId ?? undefined);
  if (!product) return { product: null, chains: [] };
  const { chains } = chainSummary(deps, product, { city: target.city ?? undefined }, now);
  return {
    product,
    chains: chains.map((c) => ({ chainId: c.chainSlug, chainName: c.chainName, shelf: c.price, effective: c.effective, storeCount: c.storeCount })),
  };
}

/** The chains an alert looks at: its chain_ids, or every chain when it names none. */
export function filterChains(view: PriceView, chainIds: string[]): ChainPrice[] {
  if (chainIds.length === 0) return view.chains;
  const wanted = new Set(chainIds);
  return view.chains.filter((c) => wanted.has(c.chainId));
}
