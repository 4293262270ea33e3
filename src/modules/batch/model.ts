import * as z from "zod";
import { DateTime } from "../../openapi/formats.ts";
import { LiveMode } from "../../http/request/livemode.ts";
import { REGIONS } from "../../geo/geo.ts";
import { NearText, RadiusKmBody } from "../../http/request/near-params.ts";
import { ProductPrices } from "../prices/model.ts";
import { ProductId } from "../../identity/product-id.ts";

const Barcode = ProductId;
/** A chain id as a batch names it (the items' `chain_id`, `chain_ids`). */
export const CHAIN_SLUG = /^[a-z0-9-]{1,40}$/;
const ChainSlug = z.string().regex(CHAIN_SLUG, "must be a chain id: lowercase letters, digits and hyphens, e.g. `rami-levy`");

export const MAX_BATCH_ITEMS = 100;

export const BatchItem = z
  .object({
    barcode: Barcode.describe("As for /prices/: a GTIN, a chain-internal code (with its `chain_id`) or a generic product id `g-…`; leading zeros are not significant"),
    chain_id: ChainSlug.optional().describe("As for /prices/: the chain whose item a chain-internal code names; its prices only"),
  })
  .strict();

export const BatchBody = z
  .object({
    items: z.array(BatchItem).min(1, "must hold at least one item").max(MAX_BATCH_ITEMS, `must hold at most ${MAX_BATCH_ITEMS} items`),
    granularity: z.enum(["chain", "store"]).default("chain").describe("`chain` (default): one entry per chain; `store`: one per store"),
    chain_ids: z.array(ChainSlug).min(1).max(50).optional().describe("Only these chains' prices"),
    city: z.string().min(1).max(60).optional().describe("As for /prices/: any common spelling, the English name or the CBS code"),
    region: z.enum(REGIONS).optional(),
    near: NearText.optional(),
    radius_km: RadiusKmBody,
  })
  .strict();

export type BatchBody = z.infer<typeof BatchBody>;

/** An item's answer: what /prices/ answers for it, or why it has none. */
export const BatchResult = z.union([
  ProductPrices,
  z.object({
    barcode: z.string().describe("The barcode as sent"),
    chain_id: z.string().optional().describe("The item's chain_id as sent"),
    error: z.object({
      code: z.string().describe("The code /prices/ would answer with: `product_not_found`, `chain_not_found`, `ambiguous_product`"),
      detail: z.string(),
      candidates: z
        .array(z.object({ barcode: z.string(), chain_id: z.string().nullable(), name: z.string() }))
        .optional()
        .describe("`ambiguous_product`: the items the bare code could mean; send one again with its `chain_id`"),
    }),
  }),
]);

export const BatchResponse = z.object({
  data: z.array(BatchResult).describe("One result per item, in the order sent"),
  meta: z.object({
    items: z.number().int(),
    calls: z.number().int().describe("Calls of the monthly quota the request counted: one per 10 items, rounded up"),
    data_updated_at: DateTime.nullable(),
    source: z.string(),
    quota_remaining: z.number().int().optional(),
    request_id: z.string().optional(),
    livemode: LiveMode,
  }),
});
