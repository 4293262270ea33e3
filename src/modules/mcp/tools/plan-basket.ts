import * as z from "zod";
import { defineTool } from "../tool.ts";
import { PLAN_BASKET } from "../../basket/plan.ts";
import { ShoppingList, Point, RadiusKm, nearParam } from "../arguments.ts";
import { ils } from "../text.ts";

/** One store of the plan as a line: where, how far, what to buy there, its total. */
function storeLine(s: any): string {
  const items = s.items.map((i: any) => `${i.quantity}× ${i.name}`).join(", ");
  return `- ${s.chain_name} — ${s.store.branch_name}${s.store.city ? `, ${s.store.city}` : ""} (${s.distance_km} km): ${ils(s.total_ils)} for ${items}`;
}

export const planBasket = defineTool({
  name: "plan_basket",
  title: "Split a list across nearby stores / חלוקת רשימה בין חנויות",
  operation: PLAN_BASKET,
  description:
    "The cheapest way to buy a shopping list at up to 3 open stores near a point: which items to buy at which store, each store's total, the plan's total, " +
    "the cheapest single store and what splitting saves against it. Items no store in range sells are listed. " +
    "איך לחלק רשימת קניות בין עד 3 חנויות קרובות כדי לשלם הכי פחות. " +
    "{Plan}. Cost: 1 API call.",
  input: z
    .object({
      items: ShoppingList,
      near: Point.describe("The shopper's location (מיקום), e.g. { lat: 32.0853, lon: 34.7818 }"),
      radius_km: RadiusKm.optional(),
      max_stores: z.number().int().min(1).max(3).default(2).describe("At most this many stores, 1–3 (default 2)"),
    })
    .strict(),
  request: (args) => ({
    method: "POST",
    path: "/api/v1/basket/plan/",
    body: { items: args.items, near: nearParam(args.near), radius_km: args.radius_km, max_stores: args.max_stores },
  }),
  summary: (data: any) => {
    if (data.stores.length === 0) return "No open store in range sells any of these products.";
    const saving = data.saving_ils ? ` — saves ${ils(data.saving_ils)} against the cheapest single store` : "";
    const single = data.best_single_store ? [`Cheapest single store: ${data.best_single_store.chain_name} — ${data.best_single_store.store.branch_name}: ${ils(data.best_single_store.total_ils)}`] : [];
    const missing = data.missing_items.length > 0 ? [`Sold by no store in range: ${data.missing_items.join(", ")}`] : [];
    return [`Cheapest plan: ${ils(data.total_ils)} at ${data.stores.length} store(s)${saving}:`, ...data.stores.map(storeLine), ...single, ...missing].join("\n");
  },
});
