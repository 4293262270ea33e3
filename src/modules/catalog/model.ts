import * as z from "zod";
import { DateTime } from "../../openapi/formats.ts";
import { LiveMode } from "../../http/request/livemode.ts";
import { WholeNumber } from "../../http/request/whole-number.ts";
import { ChainSlug } from "../prices/model.ts";

export const CatalogParams = z.object({ id: ChainSlug });

export const Limit = WholeNumber(1, 100, 20).describe("Items per page, 1–100 (default 20)");
export const Cursor = z.string().min(1).max(2048).optional().describe("`meta.next_cursor` of the previous page");

export const CatalogQuery = z.object({
  limit: Limit,
  cursor: Cursor,
  q: z.string().min(1).max(100).optional().describe("Only products whose name contains this text, or whose barcode starts with these digits"),
  category: z.string().regex(/^[a-z0-9-]{1,40}$/, "must be a category slug: lowercase letters, digits and hyphens, e.g. `dairy`").optional().describe("Category slug, e.g. `dairy`"),
});

const Money = z.string().regex(/^\d+\.\d{2}$/);

export const CatalogItem = z.object({
  barcode: z.string().describe("The item's barcode or chain-internal code: pass it, with `chain_id` when not null, to prices, history, basket and widget data"),
  chain_id: z.string().nullable().describe("The chain, for a chain-internal item code (not a shared GTIN); null for a GTIN shared by all chains"),
  name: z.string(),
  manufacturer: z.string().nullable(),
  category: z.string().nullable(),
  price_min_ils: Money,
  price_max_ils: Money,
  store_count: z.number().int(),
  is_on_promotion: z.boolean(),
});

export const CatalogResponse = z.object({
  data: z.array(CatalogItem),
  meta: z.object({
    chain_id: z.string(),
    next_cursor: z.string().nullable(),
    data_updated_at: DateTime.nullable(),
    quota_remaining: z.number().int().optional(),
    request_id: z.string().optional(),
    livemode: LiveMode,
  }),
});
