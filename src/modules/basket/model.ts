import * as z from "zod";
import { BasketLine } from "./line-model.ts";
import { DateTime } from "../../openapi/formats.ts";
import { LiveMode } from "../../http/request/livemode.ts";
import { ChainSlug, StoreObject } from "../prices/model.ts";
import { ProductId } from "../../identity/product-id.ts";
import { NearText, RadiusKmBody } from "../../http/request/near-params.ts";
import { StoreRankingFields } from "./store-model.ts";

export const BasketItemInput = z
  .object({
    barcode: ProductId,
    chain_id: ChainSlug.optional().describe("The chain of a chain-internal item code: the `chain_id` of its search or catalog item"),
    quantity: z.number().int("must be a whole number").min(1).max(99),
  })
  .strict();

export const BasketBody = z
  .object({
    items: z.array(BasketItemInput).min(1, "must hold at least one item").max(100, "must hold at most 100 items"),
    chain_ids: z.array(z.string().regex(/^[a-z0-9-]{1,40}$/, "must be a chain id: lowercase letters, digits and hyphens, e.g. `rami-levy`")).min(1).max(50).optional(),
    city: z.string().trim().min(1).max(60).optional().describe("Price each chain's cheapest store in this city (any common spelling, English name or CBS code)"),
    near: NearText.optional().describe("`\"lat,lon\"` inside Israel: price each chain's cheapest open store within `radius_km` of the point"),
    radius_km: RadiusKmBody,
    ...StoreRankingFields,
  })
  .strict();

export type BasketBody = z.infer<typeof BasketBody>;

const Money = z.string().regex(/^\d+\.\d{2}$/);

export { BasketLine };

export const BasketChain = z.object({
  chain_id: z.string(),
  chain_name: z.string(),
  total_ils: Money,
  shelf_total_ils: Money,
  club_total_ils: Money.describe("What a club member pays: club-only promotions applied too, multi-buy where the quantity qualifies (coupons and basket minimums never)"),
  coverage: z.number().min(0).max(1).describe("Items found ÷ items (0–1)"),
  estimated_total_ils: Money.nullable().describe(
    "`total_ils` with each missing item priced at the median of its line total over the chains that sell it (listed in `estimated_items`); null when some item is sold nowhere",
  ),
  estimated_items: z.array(z.string()).describe("The items `estimated_total_ils` priced at other chains' median"),
  ranked: z.boolean().describe("False when `coverage` is below the request's `min_coverage`: listed after the ranked chains, never `cheapest_store`"),
  not_ranked_reason: z.enum(["coverage_below_minimum"]).nullable(),
  suspect_items: z.array(z.string()).describe("Items whose price here is suspect (see /prices/ `suspect`): `cheapest_store` passes over a chain with any, unless every ranked chain has some"),
  items_found: z.number().int(),
  items_total: z.number().int(),
  items: z.array(BasketLine),
  missing_items: z.array(z.string()),
  store: StoreObject.extend({ distance_km: z.number().optional().describe("With `near`: kilometres from the point") })
    .optional()
    .describe("With `city` or `near`: the chain's store that was priced"),
});

export const BasketResponse = z.object({
  data: z.object({
    cheapest_store: z.string().nullable().describe("The first ranked chain with no suspect price in its lines (else the first ranked); null when none is ranked"),
    stores: z.array(BasketChain),
    missing_items: z.array(z.string()),
  }),
  meta: z.object({ data_updated_at: DateTime.nullable(), quota_remaining: z.number().int().optional(), request_id: z.string().optional(), livemode: LiveMode }),
});
