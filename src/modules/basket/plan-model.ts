import * as z from "zod";
import { BasketLine } from "./line-model.ts";
import { DateTime } from "../../openapi/formats.ts";
import { LiveMode } from "../../http/request/livemode.ts";
import { NearText, RadiusKmBody } from "../../http/request/near-params.ts";
import { StoreObject } from "../prices/model.ts";
import { BasketItemInput } from "./model.ts";

const Money = z.string().regex(/^\d+\.\d{2}$/);

export const PlanBody = z
  .object({
    items: z.array(BasketItemInput).min(1, "must hold at least one item").max(100, "must hold at most 100 items"),
    near: NearText.describe("`\"lat,lon\"` inside Israel: the stores within `radius_km` of it"),
    radius_km: RadiusKmBody,
    max_stores: z.number().int().min(1).max(3).describe("At most this many stores, 1–3"),
    min_coverage: z.number().min(0).max(1).optional().describe("0–1, default 0: only stores that alone sell at least this share of the items"),
  })
  .strict();

export type PlanBody = z.infer<typeof PlanBody>;


const PlanStore = z.object({
  chain_id: z.string(),
  chain_name: z.string(),
  store: StoreObject,
  distance_km: z.number(),
  items: z.array(BasketLine).describe("What to buy there: each item's whole quantity, priced as in the basket"),
  total_ils: Money,
});

export const PlanResponse = z.object({
  data: z.object({
    stores: z.array(PlanStore).describe("The stores of the plan, nearest first"),
    total_ils: Money.describe("Sum of the stores' totals"),
    best_single_store: PlanStore.omit({ items: true })
      .extend({ items_found: z.number().int() })
      .nullable()
      .describe("The cheapest single store among those selling most items; null when no store in range sells any"),
    saving_ils: Money.nullable().describe("best_single_store's total − total_ils when both buy the same items; null otherwise"),
    missing_items: z.array(z.string()).describe("Items no store in range sells (or unknown barcodes)"),
    unassigned_items: z.array(z.string()).describe("Items stores in range sell, but none of the plan's (max_stores too small to cover them)"),
    exact: z.boolean().describe("true: the cheapest plan; false: the search stopped at its work budget (see the description)"),
    lower_bound_ils: Money.describe("Every assigned item at its cheapest store in range, without the store limit: no plan costs less"),
    stores_considered: z.number().int().describe("Open stores in range meeting min_coverage"),
  }),
  meta: z.object({ data_updated_at: DateTime.nullable(), quota_remaining: z.number().int().optional(), request_id: z.string().optional(), livemode: LiveMode }),
});
