import type { PricingData } from "../deps.ts";
import { chainSummary } from "../pricing/chain-summary.ts";
import type { ProductRow } from "../pricing/queries.ts";
import { resolveProduct } from "../identity/resolve.ts";
import { productKey } from "../identity/product-id.ts";
import { chainPricesOf, suspectReason } from "../pricing/suspect.ts";
import { storeTable } from "../pricing/store-table.ts";

/**
 * What an alert watches: a product (its identifier, with the chain of a chain-internal item),
 * optionally some chains and a city.
 */
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
  return JSON.stringify([productKey(t.barcode), t.chainId, t.city]);
}

/**
 * The chain figures /prices/ shows for the target's product (the same pricing code: chain price =
 * most common shelf price, effective = after the best single-unit promotion open to all), over the
 * stores of `city` when set; chain_ids narrowing is applied by the caller (filterChains). A product
 * no chain sells any more gives no chains. A chain whose price is suspect (most likely a data error:
 * src/pricing/suspect.ts) is left out: an alert never fires on a price /prices/ flags.
 */
export function priceView(deps: PricingData, target: AlertTarget, now: Date): PriceView {
  // The API's one product resolution (src/identity/resolve.ts), as /prices/ resolves it.
  const resolved = resolveProduct(deps.db.prices, { barcode: target.barcode, chain_id: target.chainId });
  if (!resolved.ok) return { product: null, chains: [] };
  const product = resolved.product;
  const { chains } = chainSummary(deps, product, { city: target.city ?? undefined }, now);
  const reference = chainPricesOf(deps.db.prices, product.id);
  const chainIdOf = storeTable(deps).chainIdOf!;
  return {
    product,
    chains: chains.filter((c) => suspectReason(c.price, chainIdOf(c.chainSlug) ?? 0, reference) === null).map((c) => ({ chainId: c.chainSlug, chainName: c.chainName, shelf: c.price, effective: c.effective, storeCount: c.storeCount })),
  };
}

/** The chains an alert looks at: its chain_ids, or every chain when it names none. */
export function filterChains(view: PriceView, chainIds: string[]): ChainPrice[] {
  if (chainIds.length === 0) return view.chains;
  const wanted = new Set(chainIds);
  return view.chains.filter((c) => wanted.has(c.chainId));
}
