import * as z from "zod";
import { DateTime, IsoDate } from "../../openapi/formats.ts";
import { LiveMode } from "../../http/request/livemode.ts";
import { REGIONS } from "../../geo/geo.ts";

/** `months` of history: plain digits 1–24; absent = no history in the answer. */
const Months = z
  .string()
  .regex(/^\d{1,6}$/, "must be a whole number from 1 to 24")
  .transform(Number)
  .pipe(z.number().int().min(1, "must be a whole number from 1 to 24").max(24, "must be a whole number from 1 to 24"))
  .optional()
  .meta({ type: "integer", minimum: 1, maximum: 24 });

export const PriceIndexQuery = z.object({
  region: z.enum(REGIONS).optional().describe(`Only stores of this region: ${REGIONS.map((r) => `\`${r}\``).join(", ")}`),
  city: z.string().min(1).max(60).optional().describe("Only stores of this city: any common spelling, its English name or its CBS code"),
  months: Months.describe("With it, each chain carries its daily index over the last `months` months (1–24), for charts; without, none"),
});

export const PriceIndexEntry = z.object({
  chain_id: z.string(),
  chain_name: z.string(),
  index: z.number().nullable().describe("100 = the median chain; 95.0 = 5 % cheaper than it over the common basket. Null when the chain carries under half of the basket"),
  rank: z.number().int().nullable().describe("1 = the cheapest chain; null without an index"),
  products: z.number().int().describe("Common basket products the chain carries"),
  coverage: z.number().min(0).max(1).describe("products ÷ the basket's products, 0–1"),
  history: z
    .array(z.object({ date: IsoDate, index: z.number().nullable() }))
    .optional()
    .describe("With `months`: the index on every day from `meta.from` to today (null on days the chain carried under half of the basket)"),
});

export const PriceIndexResponse = z.object({
  data: z.array(PriceIndexEntry),
  meta: z.object({
    basket_products: z.number().int().describe("Products in the common basket"),
    chains_with_data: z.number().int().describe("Chains with prices in the scope"),
    basket_min_chains: z.number().int().describe("Chains that must carry a product for it to join the basket (80 % of chains_with_data, rounded up)"),
    basket_chain_share: z.number().describe("0.8"),
    min_index_coverage: z.number().describe("0.5: the basket share a chain must carry to get an index"),
    region: z.string().nullable(),
    city: z.string().nullable().describe("The stored city name the `city` filter resolved to"),
    months: z.number().int().nullable(),
    from: IsoDate.nullable().describe("First day of the history; null without `months`"),
    data_updated_at: DateTime.nullable(),
    quota_remaining: z.number().int().optional(),
    request_id: z.string().optional(),
    livemode: LiveMode,
  }),
});
