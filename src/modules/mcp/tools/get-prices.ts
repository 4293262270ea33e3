import * as z from "zod";
import { defineTool } from "../tool.ts";
import { GET_PRICES } from "../../prices/index.ts";
import { Barcode, ChainId, City, Cursor, Point, RadiusKm, nearParam } from "../arguments.ts";
import { STORE_PAGE_MAX } from "../../prices/model.ts";
import { count, ils, lines } from "../text.ts";

/** One price entry as a line: where, the price paid, and what lies behind it. */
function priceLine(entry: any): string {
  const store = entry.store ? ` — ${entry.store.branch_name}${entry.store.city ? `, ${entry.store.city}` : ""}` : "";
  const distance = typeof entry.distance_km === "number" ? ` (${entry.distance_km} km)` : "";
  const promo = entry.is_on_promotion ? ` (on promotion; shelf ${ils(entry.price_ils)})` : "";
  const spread = entry.granularity === "chain" && entry.min_price_ils !== entry.max_price_ils ? `, ${ils(entry.min_price_ils)}–${ils(entry.max_price_ils)} across stores` : "";
  const stores = typeof entry.store_count === "number" ? `, ${count(entry.store_count, "store")}` : "";
  const measure = entry.price_per_measure_ils ? `; ${ils(entry.price_per_measure_ils)} per ${entry.measure}` : "";
  const perKg = entry.sold_by === "kg" ? " per kg" : "";
  const club = entry.club_price_ils ? `; club members ${ils(entry.club_price_ils)}` : "";
  const low = entry.is_on_promotion && entry.lowest_price_30d_ils ? `; lowest in 30 days ${ils(entry.lowest_price_30d_ils)}` : "";
  const suspect = entry.suspect ? ` — SUSPECT price (${entry.suspect_reason}): most likely a data error, do not present it as the cheapest` : "";
  return `- ${entry.chain_name}${store}${distance}: ${ils(entry.effective_price_ils)}${perKg}${promo}${club}${low}${spread}${stores}${measure}${suspect}`;
}

export const getPrices = defineTool({
  name: "get_prices",
  title: "Prices of a product / מחירי מוצר",
  operation: GET_PRICES,
  description:
    "Current prices of one product at every chain (one entry per chain: the chain's most common shelf price and the price after promotions open to all), " +
    "cheapest first; or per store with granularity `store`. Narrow it to a city (`city`) or to stores near a point (`near`, `radius_km`; per store, with distances). " +
    "Prices are in shekels (₪) including VAT (Eilat stores: without). Get the barcode from search_products. " +
    "מחירי מוצר בכל הרשתות, מהזול ליקר; אפשר לפי עיר או ליד מיקום. " +
    "{Plan}. Cost: 1 API call.",
  input: z
    .object({
      barcode: Barcode,
      chain_id: ChainId.optional().describe("Only this chain; with a chain-internal item code, the chain the item belongs to"),
      city: City.optional().describe("Only stores in this city (עיר), e.g. `חיפה`"),
      near: Point.optional(),
      radius_km: RadiusKm.optional(),
      granularity: z.enum(["chain", "store"]).optional().describe("`chain` (default): one entry per chain; `store`: one per store (the default with `near`)"),
      limit: z
        .number()
        .int()
        .min(1)
        .max(STORE_PAGE_MAX)
        .optional()
        .describe(`Per store only: stores per page, 1–${STORE_PAGE_MAX} (default: every store at once — up to some 2,000 without a filter)`),
      cursor: Cursor.optional(),
    })
    .strict(),
  request: (args) => ({
    method: "GET",
    path: "/api/v1/prices/",
    query: {
      barcode: args.barcode,
      chain_id: args.chain_id,
      city: args.city,
      near: nearParam(args.near),
      radius_km: args.radius_km,
      granularity: args.granularity ?? (args.near ? "store" : undefined),
      limit: args.limit,
      cursor: args.cursor,
    },
  }),
  summary: (data: any, meta, args) => {
    const where = [args.city ? `in ${args.city}` : "", args.near ? `near ${args.near.lat},${args.near.lon}` : ""].filter(Boolean).join(" ");
    if (data.prices.length === 0) return `${data.name} (${data.barcode}): no prices${where ? ` ${where}` : ""}.`;
    const unit = data.prices[0].granularity === "store" ? "stores" : "chains";
    const head = `${data.name} (${data.barcode})${where ? ` ${where}` : ""} — ${data.prices.length} ${unit}, cheapest first:`;
    const more = meta.next_cursor ? [`More (${meta.total} stores in all): call again with cursor = meta.next_cursor and the same limit.`] : [];
    return [head, ...lines(data.prices, 30, priceLine), ...more].join("\n");
  },
});
