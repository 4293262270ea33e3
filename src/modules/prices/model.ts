import * as z from "zod";
import { IsoDate } from "../../openapi/formats.ts";
import { DateTime } from "../../openapi/formats.ts";
import { LiveMode } from "../../http/request/livemode.ts";
import { OptionalWholeNumber, WholeNumber } from "../../http/request/whole-number.ts";
import { REGIONS } from "../../geo/geo.ts";
import { ProductId } from "../../identity/product-id.ts";
import { NearQuery, RadiusKmQuery } from "../../http/request/near-params.ts";

/** A product identifier (src/identity/product-id.ts): digits, or a generic product id `g-…`. */
export const Barcode = ProductId;

export const ChainSlug = z.string().regex(/^[a-z0-9-]{1,40}$/, "must be a chain id: lowercase letters, digits and hyphens, e.g. `rami-levy`").describe("Chain identifier, e.g. `rami-levy`");

/** Most store entries one page of GET /api/v1/prices/ gives (`limit`); without `limit`, every entry. */
export const STORE_PAGE_MAX = 1000;

/** What `granularity` takes: one entry per chain (the default) or per store. */
export const GRANULARITIES = ["chain", "store"] as const;

export const PricesQuery = z.object({
  barcode: Barcode,
  granularity: z.enum(GRANULARITIES).default("chain").describe("`chain` (default): one entry per chain; `store`: one per store"),
  chain_id: ChainSlug.optional(),
  city: z
    .string()
    .min(1)
    .max(60)
    .optional()
    .describe("City: the Hebrew name in any common spelling (`תל אביב` = `תל אביב-יפו`), its English name or its CBS code, e.g. `חיפה`"),
  region: z.enum(REGIONS).optional().describe(`Region slug: ${REGIONS.map((r) => `\`${r}\``).join(", ")}`),
  near: NearQuery.optional(),
  radius_km: RadiusKmQuery,
  limit: OptionalWholeNumber(1, STORE_PAGE_MAX).describe(
    `\`granularity=store\` only: store entries per page, 1–${STORE_PAGE_MAX}; without it every entry comes in one answer (the default). Pass \`meta.next_cursor\` as \`cursor\` for the next page`,
  ),
  cursor: z.string().min(1).max(2048).optional().describe("`granularity=store` only: `meta.next_cursor` of the previous page (with the same `limit` and filters)"),
});

const Money = z.string().regex(/^-?\d+\.\d{2}$/).describe("Decimal string in ILS, two places");

/** A store as the API shows it; `city` and `region` are null when the store list gives none we recognise. */
export const StoreObject = z.object({
  store_id: z.string().describe("The chain's store code, without leading zeros"),
  branch_name: z.string(),
  city: z.string().nullable().describe("Hebrew city name (canonical spelling when known); null when the store list gives none"),
  region: z.enum(REGIONS).nullable().describe("Region slug; null when the city is unknown to the service's locality table"),
});

export const PriceEntry = z.object({
  chain_id: z.string(),
  chain_name: z.string(),
  granularity: z.enum(["chain", "store"]),
  store: StoreObject.optional(),
  price_ils: Money,
  effective_price_ils: Money,
  min_price_ils: Money.optional(),
  max_price_ils: Money.optional(),
  store_count: z.number().int().optional(),
  currency: z.literal("ILS"),
  vat_included: z.boolean(),
  vat_rate: z.number(),
  collected_at: DateTime,
  is_on_promotion: z.boolean(),
  promotion_id: z.string().nullable().optional(),
  club_price_ils: Money.nullable().describe(
    "The unit price a club member pays with the best club-only promotion (coupons and basket minimums excluded), when it is lower than `effective_price_ils`; null when none applies. At chain granularity: the most common such price over the chain's stores, null when that is not lower than the chain's effective price",
  ),
  lowest_price_30d_ils: Money.nullable().describe(
    "The lowest shelf price in the 30 days before today (Israel time): of this store, or at chain granularity the lowest of the chain's daily prices as `/prices/{barcode}/history/` gives them — the reference to read a promotion against",
  ),
  suspect: z
    .boolean()
    .describe("True when the shelf price is most likely a data error (see `suspect_reason`): served as published, but listed after the other entries and never taken for the cheapest"),
  suspect_reason: z
    .enum(["placeholder", "far_below_median", "far_above_median"])
    .nullable()
    .describe(
      "`placeholder`: 0.00, 0.01 or a run of nines (999.99, 9999.99 …); `far_below_median` / `far_above_median`: under a fifth or over five times the median of the other chains' chain prices of the product (at least two other chains). Null when not suspect",
    ),
  sold_by: z.enum(["kg", "unit"]).optional().describe("Generic products (`g-…`, loose produce): sold per kilogram (the price is per kg) or per unit"),
  price_per_measure_ils: Money.nullable(),
  measure: z.enum(["100g", "100ml", "unit"]).nullable(),
  items: z
    .array(z.object({ barcode: z.string(), chain_id: z.string().nullable(), name: z.string() }))
    .optional()
    .describe("Generic products (`g-…`) at chain granularity: the chain's own items the price is taken over (per store, the lowest of them); follow one with its `barcode` and `chain_id`"),
  distance_km: z.number().optional().describe("Store entries of a question with `near`: kilometres from the point (0.01 km steps)"),
});

/** One product and its prices: the `data` of /prices/ and each found item of /prices/batch/. */
export const ProductPrices = z.object({
  barcode: z.string(),
  name: z.string(),
  manufacturer: z.string().nullable(),
  category: z.string().nullable(),
  unit_qty: z.string().nullable(),
  size: z.number().nullable(),
  unit: z.string().nullable(),
  prices: z.array(PriceEntry),
});

export const PricesResponse = z.object({
  data: ProductPrices,
  meta: z.object({
    data_updated_at: DateTime.nullable(),
    quota_remaining: z.number().int().optional(),
    request_id: z.string().optional(),
    livemode: LiveMode,
    source: z.string(),
    next_cursor: z.string().nullable().optional().describe("Paged store answers (`limit` given): the next page's `cursor`, null on the last page; absent when not paged"),
    total: z.number().int().optional().describe("Paged store answers (`limit` given): the number of store entries over all pages"),
  }),
});

export const HistoryParams = z.object({ barcode: Barcode });

export const HistoryQuery = z.object({
  months: WholeNumber(1, 24, 12).describe("Months of history, 1–24 (default 12); at most the server's MEHIR_HISTORY_MONTHS when that is lower"),
  chain_id: ChainSlug.optional(),
});

export const HistoryResponse = z.object({
  data: z.object({
    barcode: z.string(),
    name: z.string(),
    history: z.array(z.object({ chain_id: z.string(), chain_name: z.string(), price_ils: Money, date: IsoDate })),
  }),
  meta: z.object({
    months: z.number().int(),
    records: z.number().int(),
    from: IsoDate,
    data_updated_at: DateTime.nullable(),
    quota_remaining: z.number().int().optional(),
    request_id: z.string().optional(),
    livemode: LiveMode,
  }),
});
