import * as z from "zod";
import { BasketLine } from "./line-model.ts";
import { DateTime } from "../../openapi/formats.ts";
import { LiveMode } from "../../http/request/livemode.ts";
import { StoreObject } from "../prices/model.ts";

const Money = z.string().regex(/^\d+\.\d{2}$/);

/** The basket body's store-ranking members (spread into BasketBody). */
export const StoreRankingFields = {
  granularity: z
    .enum(["chain", "store"])
    .optional()
    .describe("`chain` (default): one entry per chain; `store`: the stores themselves ranked (needs `near` or `city`)"),
  min_coverage: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe(
      "0–1, default 0. Chains: those whose `coverage` (items found ÷ items) is below it are listed unranked (`ranked: false`), after the ranked ones, and are never `cheapest_store` — consumer groups compare where a chain carries most of a list (the Consumer Council uses 0.8). With `granularity: \"store\"`: only stores selling at least this share of the items",
    ),
  limit: z.number().int().min(1).max(50).optional().describe("With `granularity: \"store\"`: stores answered, 1–50 (default 10)"),
};

/** A store holding the basket: distance when the request had `near`. */
export const PricedStore = StoreObject.extend({ distance_km: z.number().optional().describe("With `near`: kilometres from the point") });


export const BasketStoreEntry = z.object({
  chain_id: z.string(),
  chain_name: z.string(),
  store: PricedStore,
  total_ils: Money.describe("Promotions open to all customers applied (multi-buy where the quantity qualifies), at this store's prices"),
  shelf_total_ils: Money,
  items_found: z.number().int(),
  items_total: z.number().int(),
  coverage: z.number().min(0).max(1).describe("items_found ÷ items_total"),
  items: z.array(BasketLine),
  missing_items: z.array(z.string()),
});

export const BasketStoresResponse = z.object({
  data: z.object({
    granularity: z.literal("store"),
    cheapest_store: z.object({ chain_id: z.string(), store_id: z.string() }).nullable().describe("The first store of `stores`; null when none qualifies"),
    stores: z.array(BasketStoreEntry).describe("Most items found first, then the lowest total, then the nearest; at most `limit`"),
    stores_compared: z.number().int().describe("Stores meeting `min_coverage` before `limit` was applied"),
    missing_items: z.array(z.string()),
  }),
  meta: z.object({ data_updated_at: DateTime.nullable(), quota_remaining: z.number().int().optional(), request_id: z.string().optional(), livemode: LiveMode }),
});
