import * as z from "zod";
import { defineTool } from "../tool.ts";
import { GET_PROMOS } from "../../promos/index.ts";
import { Barcode, ChainId, Cursor } from "../arguments.ts";
import { ils, lines } from "../text.ts";

/** A promotion as a line: chain, wording as published, terms, dates, a few of its items. */
function promotionLine(p: any): string {
  const flags = [p.is_club_only ? "club members only" : "", p.is_coupon ? "coupon" : ""].filter(Boolean).join(", ");
  const price = p.discounted_price_ils ? ` — ${p.min_qty ?? 1} for ${ils(p.discounted_price_ils)}` : p.discount_rate ? ` — ${Math.round(p.discount_rate * 100)}% off` : "";
  const until = p.ends_at ? `, until ${p.ends_at.slice(0, 10)}` : "";
  const items = p.items.slice(0, 3).map((i: any) => i.name).join("; ");
  const more = p.item_count > 3 ? ` and ${p.item_count - 3} more` : "";
  return `- ${p.chain_name}: ${p.description ?? p.promotion_id}${price}${flags ? ` (${flags})` : ""}${until}; ${items}${more}`;
}

export const promotions = defineTool({
  name: "promotions",
  title: "Promotions / מבצעים",
  operation: GET_PROMOS,
  description:
    "Promotions running now, newest first, as the chains publish them (wording in Hebrew, e.g. \"3 ב-10\"): price or discount, minimum quantity, dates, " +
    "whether club membership or a coupon is needed, and the products included. Filter by chain, product (barcode) or store. " +
    "מבצעים פעילים ברשתות: לפי רשת, מוצר או סניף, כולל מבצעי מועדון. " +
    "{Plan}. Cost: 1 API call per page.",
  input: z
    .object({
      chain_id: ChainId.optional().describe("Only this chain's promotions"),
      barcode: Barcode.optional().describe("Only promotions that include this product"),
      store_id: z.string().regex(/^\d{1,6}$/, "must be a store code: 1 to 6 digits").optional().describe("Only promotions of this store (the chain's store code; give chain_id too)"),
      include_club: z.boolean().default(true).describe("Include club-only promotions (מבצעי מועדון), default true"),
      limit: z.number().int().min(1).max(50).default(10).describe("Promotions per page, 1–50 (default 10)"),
      cursor: Cursor.optional(),
    })
    .strict(),
  request: (args) => ({
    method: "GET",
    path: "/api/v1/promos/feed/",
    query: { chain_id: args.chain_id, barcode: args.barcode, store_id: args.store_id, include_club: args.include_club, limit: args.limit, cursor: args.cursor },
  }),
  summary: (data: any[], meta) => {
    if (data.length === 0) return "No promotions running that match.";
    const more = meta.next_cursor ? ["More: call again with cursor = meta.next_cursor."] : [];
    return [`${data.length} promotions running:`, ...lines(data, 50, promotionLine), ...more].join("\n");
  },
});
