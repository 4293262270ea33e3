import * as z from "zod";
import { Url } from "../../openapi/formats.ts";
import { DateTime } from "../../openapi/formats.ts";
import { LiveMode } from "../../http/request/livemode.ts";
import { Barcode, ChainSlug } from "../prices/model.ts";

export const WidgetDataQuery = z.object({
  barcode: Barcode,
  chain_id: ChainSlug.optional().describe("The chain of a chain-internal item code (the `chain_id` of its search or catalog item); the answer still lists every chain selling the item"),
  key: z
    .string()
    .max(200)
    .optional()
    .describe("Publishable key `pk_live_…` (or send it in the `X-API-Key` header); the query form needs no CORS preflight"),
});

const Money = z.string().regex(/^-?\d+\.\d{2}$/).describe("Decimal string in ILS, two places");

export const WidgetPriceEntry = z.object({
  chain_id: z.string(),
  chain_name: z.string(),
  chain_name_en: z.string().describe("The chain's English name (the widget shows it with data-lang=\"en\")"),
  price_ils: Money.describe("The chain's most common shelf price among its stores carrying the product (tie → lower)"),
  effective_price_ils: Money.describe("Likewise after active promotions open to all customers for a single unit"),
  is_on_promotion: z.boolean(),
  lowest_price_30d_ils: Money.nullable().describe("The lowest shelf price of the chain in the 30 days before today (as in /prices/); the widget shows it beside a promotion"),
  suspect: z.boolean().describe("The price is most likely a data error (as in /prices/): listed last, never marked cheapest"),
  sold_by: z.enum(["kg", "unit"]).optional().describe("Loose produce: the price is per kg (`kg`) or per unit"),
  store_count: z.number().int(),
});

export const WidgetDataResponse = z.object({
  data: z.object({
    barcode: z.string(),
    name: z.string(),
    image_url: Url.nullable(),
    prices: z.array(WidgetPriceEntry),
    cheapest_chain_id: z.string().nullable().describe("The first entry that is not suspect; null when none"),
    data_updated_at: DateTime.nullable(),
  }),
  meta: z.object({
    data_updated_at: DateTime.nullable(),
    source: z.string(),
    request_id: z.string().optional(),
    livemode: LiveMode,
  }),
});
