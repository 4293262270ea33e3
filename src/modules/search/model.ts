import * as z from "zod";
import { Url } from "../../openapi/formats.ts";
import { DateTime } from "../../openapi/formats.ts";
import { LiveMode } from "../../http/request/livemode.ts";
import { WholeNumber } from "../../http/request/whole-number.ts";
import { CATEGORIES } from "../../search/categories.ts";
import { ChainSlug } from "../prices/model.ts";

const CATEGORY_LIST = CATEGORIES.map((c) => `\`${c.slug}\` (${c.name})`).join(", ");

export const SearchQuery = z.object({
  q: z
    .string()
    .min(1)
    .max(100)
    .refine((s) => /[\p{L}\p{N}]/u.test(s), "must contain a letter or digit")
    .describe(
      "Free text, 1–100 characters: a product name or part of one, a brand, Hebrew or Latin letters, or a barcode (digits; leading zeros do not matter). " +
        "Prefix letters (ו ה ב כ ל מ ש), singular or plural (`תפוחים` finds `תפוח עץ`), final or regular letter forms, niqqud, geresh/gershayim or ASCII quotes and one typo per word of three letters or more (a swap of two letters counts as one; two typos from eight letters) are all understood; the last word may be half typed (a last word of one letter is left out until more is typed). " +
        "Common grocery words in English (`milk`, `toilet paper`) and Latin spellings of Israeli brands (`bamba`, `tnuva`) are searched as their Hebrew words; a product's own Latin name still matches. " +
        "Products the words name (their name starts with them: milk for `חלב`) come before products that only mention them, and whole words before longer words starting with the last word. " +
        "A package size (`1 ליטר`, `500 גרם`, `250 מ\"ל`) or a number without a unit (`קוקה קולה 1.5`, `ביצים 12`: a size, count or pack) ranks products of that size first. " +
        "Every name a chain publishes for a product finds it; loose produce grouped across chains answers once, as its generic product.",
    )
    .meta({ examples: ["והחלב 1 ליטר", "במבה נוג", "עגבניות", "toilet paper", "7291252436027"] }),
  limit: WholeNumber(1, 100, 20).describe("Items per page, 1–100 (default 20)"),
  cursor: z.string().min(1).max(2048).optional().describe("`meta.next_cursor` of the previous page (same `q` and filters)"),
  chain_id: ChainSlug.optional().describe("Only products sold in a store of this chain, e.g. `shufersal`"),
  category: z
    .string()
    .regex(/^[a-z0-9-]{1,40}$/, "must be a category slug: lowercase letters, digits and hyphens, e.g. `dairy`")
    .optional()
    .describe(`Only products of this category: ${CATEGORY_LIST}`),
});

export type SearchQuery = z.infer<typeof SearchQuery>;

const Money = z.string().regex(/^\d+\.\d{2}$/);

export const SearchItem = z.object({
  barcode: z
    .string()
    .describe("The product's identifier: a barcode as published, a chain-internal item code, or a generic product id (`g-…`). Pass it, with `chain_id` when not null, to prices, history, basket and widget data"),
  chain_id: z.string().nullable().describe("The chain whose internal item code `barcode` is; null for a shared GTIN or a generic product"),
  kind: z
    .enum(["gtin", "chain_item", "generic"])
    .describe("`gtin`: a barcode shared by all chains; `chain_item`: one chain's internal code; `generic`: loose produce (or bakery, deli) grouped across chains by name and sale unit, listed before the chains' own items"),
  sold_by: z.enum(["kg"]).nullable().describe("`kg` when sold by weight: prices are per kilogram; null when sold per package or unit"),
  name: z.string(),
  category: z.string().describe("Category slug from the keyword classifier over names"),
  image_url: Url.describe("Product image: a generated label image served by this service, or the operator's image URL template"),
  manufacturer: z.string().nullable(),
  unit_qty: z.string().nullable().describe("The published unit word, e.g. `גרם`"),
  size: z.number().nullable().describe("Normalised package size in `unit`, null when unknown"),
  unit: z.enum(["g", "ml", "unit"]).nullable().describe("Unit of `size`: `g`, `ml` or `unit`"),
  chain_count: z.number().int().describe("Chains selling the product"),
  min_price_ils: Money.nullable().describe("Lowest shelf price among the stores selling it (of the chain when `chain_id` is given)"),
});

export const SearchResponse = z.object({
  data: z.array(SearchItem),
  meta: z.object({
    next_cursor: z.string().nullable(),
    total: z.number().int().describe("Products matching the query and filters"),
    data_updated_at: DateTime.nullable(),
    quota_remaining: z.number().int().optional(),
    request_id: z.string().optional(),
    livemode: LiveMode,
  }),
});
