import { Elysia } from "elysia";
import type { Feature } from "../feature.ts";
import { operation } from "../../openapi/operation.ts";
import * as z from "zod";
import { readJsonBody, validateBody, MAX_JSON_BODY } from "../../http/request/json-body.ts";
import { documentedOnly, prebuiltJson } from "../../http/prebuilt/prebuilt-json.ts";
import { requireData } from "../../serving/require-data.ts";
import { BasketBody, BasketResponse } from "./model.ts";
import { cachedBasket } from "./service.ts";
import { PLAN_BASKET, planModule } from "./plan.ts";
import { compareStoresJson } from "./store-ranking.ts";
import { BasketStoresResponse } from "./store-model.ts";
import { PrebuiltJson } from "../../http/prebuilt/prebuilt-json.ts";
import { servedData } from "../../serving/data-set.ts";

const EXAMPLE = {
  items: [
    // Identifiers of the embedded demo data (test/demo/identity.test.ts checks they answer).
    { barcode: "7291252436027", quantity: 2 },
    { barcode: "7299739033158", quantity: 3 },
    { barcode: "g-tomatoes", quantity: 1 },
    { barcode: "4087", chain_id: "osher-ad", quantity: 1 },
  ],
  city: "חיפה",
};

export const COMPARE_BASKET = operation({
  method: "post",
  path: "/api/v1/basket/compare",
  operationId: "compareBasket",
  audience: "pro",
  body: { schema: BasketBody, example: EXAMPLE },
  success: { schema: z.union([BasketResponse, BasketStoresResponse]) },
  errors: ["ambiguous_product", "chain_not_found", "city_not_found"],
  summary: "Compare a basket across chains",
  tags: ["basket"],
  description:
    "Body `{ items: [{ barcode, chain_id?, quantity }], chain_ids?, city?, near?, radius_km? }` as `application/json` (at most 64 KiB): 1–100 items, quantity a whole number 1–99 (kilograms for an item sold by weight). " +
    "An item is named as everywhere: a search or catalog item's `barcode` and, when present, its `chain_id` (a chain-internal code is priced only at its chain; a generic product `g-…` at every chain selling one of its items). " +
    "Items naming the same product are merged. Unknown barcodes are not an error: they are listed in `data.missing_items` (and in each chain's `missing_items`).\n\n" +
    "Per chain: `total_ils` with promotions open to all customers applied — multi-buy ones where the quantity qualifies (\"3 ב-10\" applies to each full group of 3, the rest at the shelf price; a maximum quantity caps it) — and `shelf_total_ils` without them; the per-item breakdown `items` and the chain's `missing_items`. " +
    "Without `city`, each item is priced at the chain price (most common shelf price among the chain's stores) with the chain's promotions that run in at least half of the stores carrying it. With `city` (any common spelling, English name or CBS code), each chain's cheapest store in that city (most items, then lowest total) is priced exactly and named in `store` (`city`/`region` null when unknown); a city with no store of the chains compared gives an empty `stores` and `cheapest_store: null`. " +
    "With `near` (`\"lat,lon\"`, inside Israel) and `radius_km` (0.1–50, default 5) the same, over each chain's open stores with a shop floor within the radius (and in `city`, when both are given); `store` then carries `distance_km`.\n\n" +
    "`cheapest_store` is the chain_id of the cheapest chain among those with every item; if none has them all, the chain with most items found, then the lowest total. `stores` are sorted the same way. Totals are exact sums in agorot.\n\n" +
    "**Stores ranked** (`granularity: \"store\"`, with `near` and `radius_km`, or `city`, or both): the stores themselves instead of one per chain — every store of the city, or open store with a shop floor within the radius — each priced exactly as above (its own shelf prices and its own promotions open to all customers, multi-buy where the quantity qualifies) and answered with its `store` (and `distance_km` with `near`) and `coverage` (items it sells ÷ items). " +
    "Only stores with `coverage` ≥ `min_coverage` (0–1, default 0) are ranked — most items found first, then the lowest total, then the nearest — and the first `limit` (1–50, default 10) answered; `stores_compared` counts those ranked, `cheapest_store` names the first (`chain_id`, `store_id`). `limit` applies only to store granularity. Without `near` or `city`: 400 `invalid_parameter` with `param` `near`.\n\n" +
    "Errors: 400 `invalid_parameter` with `param` (e.g. `items[3].quantity`, `items[0].barcode` when malformed, `chain_ids[0]` for an unknown chain, `near` malformed or outside Israel, `radius_km` out of 0.1–50 or without `near`, `body` when the body is empty or not JSON), 400 `ambiguous_product` (`param` `items[i].barcode`, with `candidates`) for a bare internal code several chains use, 413 `payload_too_large`, 415 `unsupported_media_type`, 401/403/429 as everywhere.",
});

/** POST /api/v1/basket/compare/. The body is read by us (size limit, media type) and validated with zod. */
export function basketModule() {
  return new Elysia({ name: "module.basket" }).use(prebuiltJson()).use(servedData).post(
    COMPARE_BASKET.path,
    async ({ request, dataSet }) => {
      requireData(dataSet);
      const body = validateBody(BasketBody, await readJsonBody(request, MAX_JSON_BODY));
      // The stores near a point or in a city, ranked (store-ranking.ts): priced exactly every time.
      if (body.granularity === "store") return { data: PrebuiltJson.fromBytes(compareStoresJson(dataSet, body)), meta: { data_updated_at: dataSet.data.current.updatedAt } };
      const { value, snapshot } = cachedBasket(dataSet, body);
      return { data: value, meta: { data_updated_at: snapshot.updatedAt } };
    },
    {
      parse: "none",
      // Documented, not validated per request (a 100-item basket over 30 chains is thousands of
      // fields; validating them cost more than pricing the basket). Tests check the schema.
      response: { 200: documentedOnly(z.union([BasketResponse, BasketStoresResponse])) },
    },
  );
}

/** Basket comparison, and the plan that splits a list across stores (plan.ts). */
export const basketFeature: Feature = {
  name: "basket",
  operations: [COMPARE_BASKET, PLAN_BASKET],
  routes: () => new Elysia({ name: "feature.basket" }).use(basketModule()).use(planModule()),
};
