import * as z from "zod";
import { DateTime } from "../../openapi/formats.ts";
import { LiveMode } from "../../http/request/livemode.ts";
import { Barcode, ChainSlug } from "../prices/model.ts";
import { Cursor, Limit } from "../catalog/model.ts";

export const FeedQuery = z.object({
  limit: Limit,
  cursor: Cursor,
  chain_id: ChainSlug.optional(),
  barcode: Barcode.optional().describe("Only promotions that include this product"),
  store_id: z.string().regex(/^\d{1,6}$/, "must be a store code: 1 to 6 digits").optional().describe("Only promotions of this store (store code; combine with chain_id)"),
  include_club: z.enum(["true", "false"]).default("true").describe("Include club-only promotions (default true)"),
});

const Money = z.string().regex(/^\d+\.\d{2}$/);

export const FeedItem = z.object({
  promotion_id: z.string().describe("`<chain_id>:<the chain's promotion id>`"),
  chain_id: z.string(),
  chain_name: z.string(),
  description: z.string().nullable(),
  starts_at: DateTime.nullable(),
  ends_at: DateTime.nullable(),
  is_club_only: z.boolean(),
  is_coupon: z.boolean(),
  reward_type: z.number().int().nullable(),
  min_qty: z.number().nullable(),
  max_qty: z.number().nullable(),
  discounted_price_ils: Money.nullable().describe("Price of min_qty units together"),
  discount_rate: z.number().nullable().describe("Fraction 0–1"),
  store_count: z
    .number()
    .int()
    .describe("Stores the promotion runs in (open stores); with `barcode`, those whose own item list names the product"),
  item_count: z
    .number()
    .int()
    .describe("Items listed, gifts included: with `store_id`, that store's list; otherwise every item any of its stores lists"),
  items: z
    .array(
      z.object({
        barcode: z.string(),
        name: z.string().nullable().describe("Null while no price file has published the product"),
        is_gift: z.boolean().describe("Given away with the promotion; does not change the price of the items bought"),
      }),
    )
    .describe("The first 50 items (bought first, then gifts), as counted in `item_count`"),
});

export const FeedResponse = z.object({
  data: z.array(FeedItem),
  meta: z.object({
    next_cursor: z.string().nullable(),
    data_updated_at: DateTime.nullable(),
    quota_remaining: z.number().int().optional(),
    request_id: z.string().optional(),
    livemode: LiveMode,
  }),
});
