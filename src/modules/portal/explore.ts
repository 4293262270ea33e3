import type { DataSet } from "../../deps.ts";
import { planAllows, type Plan } from "../../accounts/plans.ts";
import { ApiError } from "../../errors/api-error.ts";
import { israelDate } from "../../lib/time.ts";
import { requireData } from "../../serving/require-data.ts";
import { SearchQuery } from "../search/model.ts";
import { searchProducts } from "../search/service.ts";
import { productPrices } from "../prices/service.ts";
import { cachedPriceHistory } from "../prices/history.ts";
import { GET_PRICE_HISTORY } from "../prices/index.ts";
import { GET_PRICE_INDEX } from "../price-index/index.ts";
import { priceIndexAnswer } from "../price-index/off-thread.ts";
import type { ChainPrice, ExploreView, ProductView, StorePrice } from "./explore-pages.ts";

/**
 * What the product explorer shows, read from the live data set's services as the API's operations
 * read it (not over HTTP with a key). The explorer is for signed-in accounts, and each view takes
 * a token of the account's rate limit (index.ts). It keeps the API's plans: search and prices are
 * Free operations, shown to every account; the price history and the chain price index are shown
 * only to accounts whose plan includes those operations (their `audience`), as the API would.
 */

/** Stores listed on a product page (the cheapest first). */
export const STORES_SHOWN = 50;
const HISTORY_MONTHS = 12;
const INDEX_MONTHS = 3;

export const includesHistory = (plan: Plan) => planAllows(plan, GET_PRICE_HISTORY.audience as Plan);
export const includesIndex = (plan: Plan) => planAllows(plan, GET_PRICE_INDEX.audience as Plan);

type Base = Pick<ExploreView, "lang" | "csrf" | "email" | "plan">;

/**
 * The search page: results for `q` (when given) and the price index (cached, or computed off the
 * serving thread as the API's route does: off-thread.ts). Errors the API would answer become one sentence.
 */
export async function exploreView(data: DataSet, base: Base, q: string, messages: { noData: string; invalid: string }): Promise<ExploreView> {
  const view: ExploreView = { ...base, q, today: israelDate(data.now()), index: null };
  try {
    requireData(data);
    if (includesIndex(base.plan)) {
      const { value } = await priceIndexAnswer(data, {}, INDEX_MONTHS);
      view.index = { entries: JSON.parse(new TextDecoder().decode(value.json.bytes)), from: value.meta.from! };
    }
    if (q) {
      const query = SearchQuery.safeParse({ q, limit: "20" });
      if (!query.success) view.error = messages.invalid;
      else {
        const page = searchProducts(data, query.data, "");
        view.results = { total: page.total, items: page.items };
      }
    }
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== "data_not_ready") throw error;
    view.error = messages.noData;
  }
  return view;
}

/**
 * A product's page: chain prices, store prices (all chains, or one: `storesChain`), and its
 * history when the plan includes it. Throws the API's ApiError (product_not_found, …).
 */
export function productView(data: DataSet, base: Base, barcode: string, chainId: string | undefined, storesChain: string | undefined): ProductView {
  requireData(data);
  const chains = productPrices(data, barcode, "chain", { chainId });
  const storeQuery = { chainId: chainId ?? (storesChain && chains.prices.some((c) => c.chain_id === storesChain) ? storesChain : undefined) };
  const stores = productPrices(data, barcode, "store", storeQuery).prices as StorePrice[];
  let history: ProductView["history"] = null;
  if (includesHistory(base.plan)) {
    const { value } = cachedPriceHistory(data, barcode, HISTORY_MONTHS, chainId);
    history = { records: value.history, from: value.from };
  }
  return {
    ...base,
    today: israelDate(data.now()),
    product: { barcode: chains.barcode, chainId: chainId ?? null, name: chains.name, manufacturer: chains.manufacturer, unit_qty: chains.unit_qty },
    chains: chains.prices as ChainPrice[],
    stores: { shown: stores.slice(0, STORES_SHOWN), total: stores.length, chain: storesChain && !chainId ? (storeQuery.chainId ?? null) : null },
    history,
  };
}
