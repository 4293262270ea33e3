import * as z from "zod";
import { defineTool } from "../tool.ts";
import { COMPARE_BASKET } from "../../basket/index.ts";
import { ShoppingList, ChainId, City, Point, RadiusKm, nearParam } from "../arguments.ts";
import { ils, lines } from "../text.ts";

/** A chain's basket as a line: total, shelf total, items found, the store priced. */
function chainLine(chain: any): string {
  const distance = typeof chain.store?.distance_km === "number" ? ` (${chain.store.distance_km} km)` : "";
  const store = chain.store ? ` — ${chain.store.branch_name}${chain.store.city ? `, ${chain.store.city}` : ""}${distance}` : "";
  const saving = chain.total_ils !== chain.shelf_total_ils ? ` (shelf ${ils(chain.shelf_total_ils)})` : "";
  const missing = chain.missing_items.length > 0 ? `; missing ${chain.missing_items.join(", ")}` : "";
  const club = chain.club_total_ils && chain.club_total_ils !== chain.total_ils ? `, club members ${ils(chain.club_total_ils)}` : "";
  const estimate = chain.estimated_items?.length > 0 && chain.estimated_total_ils ? ` (≈ ${ils(chain.estimated_total_ils)} with the missing items at other chains' median)` : "";
  const ranked = chain.ranked === false ? " — not ranked: too few items" : "";
  const suspect = chain.suspect_items?.length > 0 ? ` — suspect prices for ${chain.suspect_items.join(", ")}` : "";
  return `- ${chain.chain_name}${store}: ${ils(chain.total_ils)}${saving}${club}, ${chain.items_found}/${chain.items_total} items${missing}${estimate}${ranked}${suspect}`;
}

export const compareBasket = defineTool({
  name: "compare_basket",
  title: "Compare a basket / השוואת סל קניות",
  operation: COMPARE_BASKET,
  description:
    "Total price of a shopping list at every chain, cheapest first, with promotions open to all customers applied (multi-buy ones such as \"3 ב-10\" where the quantity qualifies) " +
    "and the per-item breakdown. Without `city` or `near`, each chain is priced at its usual (most common) prices; with `city`, at the chain's cheapest store in that city; with `near` (and `radius_km`), at its cheapest open store within the radius of the point — the store named, with its distance. " +
    "Products a chain does not sell are listed as missing; chains with every item rank first. " +
    "השוואת מחיר סל קניות בין הרשתות (איפה הסל הכי זול), כולל מבצעים; אפשר לפי עיר או ליד מיקום. " +
    "{Plan}. Cost: 1 API call for the whole basket.",
  input: z
    .object({
      items: ShoppingList,
      city: City.optional().describe("Price each chain's cheapest store in this city (עיר)"),
      near: Point.optional().describe("A point in Israel (the user's location / מיקום), e.g. { lat: 32.794, lon: 34.989 } in Haifa: price each chain's cheapest open store within radius_km of it"),
      radius_km: RadiusKm.optional(),
      chain_ids: z.array(ChainId).min(1).max(50).optional().describe("Compare only these chains"),
      min_coverage: z
        .number()
        .min(0)
        .max(1)
        .optional()
        .describe("0–1: chains carrying a smaller share of the list are listed unranked and never called cheapest (0.8 is what consumer groups use)"),
    })
    .strict(),
  request: (args) => ({
    method: "POST",
    path: "/api/v1/basket/compare/",
    body: { items: args.items, city: args.city, near: nearParam(args.near), radius_km: args.radius_km, chain_ids: args.chain_ids, min_coverage: args.min_coverage },
  }),
  summary: (data: any, _meta, args) => {
    const where = [args.city ? ` in ${args.city}` : "", args.near ? ` within ${args.radius_km ?? 5} km of ${args.near.lat},${args.near.lon}` : ""].join("");
    if (data.stores.length === 0) return `No chain sells these products${where}.`;
    const cheapest = data.stores.find((c: any) => c.chain_id === data.cheapest_store);
    if (!cheapest) return [`No chain carries enough of the list${where} to be ranked. All chains:`, ...lines(data.stores, 30, chainLine)].join("\n");
    const head = `Cheapest basket${where}: ${cheapest.chain_name} ${ils(cheapest.total_ils)} (${cheapest.items_found}/${cheapest.items_total} items). All chains:`;
    const nowhere = data.missing_items.length > 0 ? [`Sold by no chain compared: ${data.missing_items.join(", ")}`] : [];
    return [head, ...lines(data.stores, 30, chainLine), ...nowhere].join("\n");
  },
});
