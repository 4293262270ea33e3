import { Elysia } from "elysia";
import type { Feature } from "../feature.ts";
import { operation } from "../../openapi/operation.ts";
import { parseQuery } from "../../http/request/query.ts";
import { requireData } from "../../serving/require-data.ts";
import { FeedQuery, FeedResponse } from "./model.ts";
import { promotionsFeed } from "./service.ts";
import { servedData } from "../../serving/data-set.ts";
import { livemodeOf } from "../../http/request/livemode.ts";

export const GET_PROMOS = operation({
  method: "get",
  path: "/api/v1/promos/feed",
  operationId: "getPromotionsFeed",
  audience: "pro",
  query: FeedQuery,
  examples: { chain_id: "shufersal", barcode: "7291252436027" },
  success: { schema: FeedResponse },
  errors: ["chain_not_found"],
  conditional: true,
  summary: "Active promotions feed",
  tags: ["promotions"],
  description:
    "Promotions active now (start ≤ now < end, open ends allowed), newest start first, cursor-paginated. Club-only and coupon promotions are included and flagged (`is_club_only`, `is_coupon`); `include_club=false` leaves club-only ones out. " +
    "Filters: `chain_id`, `barcode` (promotions including the product), `store_id` (the chain's store code). `discounted_price_ils` is the price of `min_qty` units together; `discount_rate` a fraction. A promotion appears once per chain and id (also for a chain publishing under several chain codes). Stores of a chain may list different items under one promotion: with `store_id`, `items` and `item_count` are that store's list, otherwise every item any of its stores lists; with `barcode`, `store_count` counts the stores whose list names the product. Gift items are flagged `is_gift` and never change a price; an item no price file has published yet is listed by its code with `name: null`. A promotion whose dates cannot be read is never listed. Cursor pagination (`limit` 1–100, default 20): pass `meta.next_cursor` as `cursor`, null on the last page; a cursor is bound to the data version, the filters and `limit`.\n\n" +
    "Errors: 400 `invalid_parameter` (with `param`) / `invalid_cursor` (a cursor from another query or an older data version), 404 `chain_not_found` (unknown `chain_id`), 401/403/429 as everywhere.",
});

/** GET /api/v1/promos/feed/. */
export function promosModule() {
  return new Elysia({ name: "module.promos" }).use(servedData).get(
    GET_PROMOS.path,
    ({ request, dataSet }) => {
      const query = parseQuery(request, FeedQuery);
      requireData(dataSet);
      const { items, nextCursor } = promotionsFeed(dataSet, query);
      return { data: items, meta: { next_cursor: nextCursor, data_updated_at: dataSet.data.current.updatedAt, livemode: livemodeOf(request) } };
    },
    {
      response: { 200: FeedResponse },
    },
  );
}

/** The active promotions feed. */
export const promosFeature: Feature = {
  name: "promos",
  operations: [GET_PROMOS],
  routes: () => promosModule(),
};
