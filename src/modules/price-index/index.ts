import type { Feature } from "../feature.ts";
import { Elysia } from "elysia";
import { operation } from "../../openapi/operation.ts";
import { parseQuery } from "../../http/request/query.ts";
import { requireData } from "../../serving/require-data.ts";
import { requireCity } from "../../http/request/city-filter.ts";
import { requestState } from "../../http/request/request-state.ts";
import { documentedOnly, prebuiltJson } from "../../http/prebuilt/prebuilt-json.ts";
import { servedData } from "../../serving/data-set.ts";
import { PriceIndexQuery, PriceIndexResponse } from "./model.ts";
import { priceIndexAnswer } from "./off-thread.ts";
import { servedMonths } from "../prices/served-months.ts";

export const GET_PRICE_INDEX = operation({
  method: "get",
  path: "/api/v1/chains/price-index",
  operationId: "getChainPriceIndex",
  audience: "basic",
  query: PriceIndexQuery,
  examples: { region: "haifa", city: "חיפה", months: "3" },
  success: { schema: PriceIndexResponse },
  errors: ["city_not_found"],
  conditional: true,
  summary: "Chain price index",
  tags: ["chains"],
  description:
    "Which chain is cheapest overall: per chain an `index` (100 = the median chain; 92.5 = 7.5 % cheaper than it), its `rank` (1 = cheapest), and how much of the common basket it carries (`products`, `coverage`). {Plan}.\n\n" +
    "**The common basket**: the products with a shared barcode (GTIN; not chain-internal codes or loose produce) carried by at least 80 % of the chains with prices in the scope (`meta.basket_min_chains` of `meta.chains_with_data`, rounded up) — the Consumer Council's rule; deterministic for a data version. " +
    "**The price** of a product at a chain is its chain price as in /prices/ (the most common shelf price among the chain's stores, the lower on a tie, outside Eilat whose prices exclude VAT); with `region` or `city`, the most common shelf price among the chain's stores there. " +
    "**The index** is the geometric mean, over the basket products the chain carries, of its price ÷ the median price of the product among the chains carrying it, divided by the same figure of the median chain, ×100, rounded to one decimal. " +
    "A chain carrying under half of the basket (`coverage` < 0.5) is listed last with `index` and `rank` null: too few products to compare.\n\n" +
    "**History** (`months`, 1–24): each chain's index on every day from `meta.from` to today, over today's basket, with each day's chain prices replayed from the price history (the most common price among the chain's stores of the scope outside Eilat after that day's changes). " +
    "The index is recomputed after every import (once per data version and scope, then served from memory).\n\n" +
    "Errors: 400 `invalid_parameter` (`region` not a region slug, `months` outside 1–24, or above MEHIR_HISTORY_MONTHS when that setting is lower), 404 `city_not_found`, 401/403/429 as everywhere.",
});

/** GET /api/v1/chains/price-index/. */
export function priceIndexModule() {
  return new Elysia({ name: "module.price-index" }).use(prebuiltJson()).use(servedData).get(
    GET_PRICE_INDEX.path,
    async ({ request, dataSet }) => {
      const parsed = parseQuery(request, PriceIndexQuery);
      const query = { ...parsed, months: parsed.months === undefined ? undefined : servedMonths(parsed.months, true, dataSet.settings.historyMonths) };
      requireData(dataSet);
      const city = query.city === undefined ? undefined : requireCity(dataSet, query.city);
      const { value, snapshot } = await priceIndexAnswer(dataSet, { region: query.region, city }, query.months);
      requestState(request).snapshot = snapshot;
      return {
        data: value.json,
        meta: { ...value.meta, region: query.region ?? null, city: city ?? null, months: query.months ?? null, data_updated_at: snapshot.updatedAt },
      };
    },
    // Answers are cached and serialized once; tests check them against the schema.
    { response: { 200: documentedOnly(PriceIndexResponse) } },
  );
}

/** The chain price index. */
export const priceIndexFeature: Feature = {
  name: "price-index",
  operations: [GET_PRICE_INDEX],
  routes: () => priceIndexModule(),
};
