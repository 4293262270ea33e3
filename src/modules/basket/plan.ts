import { Elysia } from "elysia";
import type { DataSet } from "../../deps.ts";
import { operation } from "../../openapi/operation.ts";
import { readJsonBody, validateBody, MAX_JSON_BODY } from "../../http/request/json-body.ts";
import { documentedOnly, prebuiltJson } from "../../http/prebuilt/prebuilt-json.ts";
import { requireData } from "../../serving/require-data.ts";
import { servedData } from "../../serving/data-set.ts";
import { nearFilter } from "../../http/request/near-params.ts";
import { roundKm } from "../../geo/distance.ts";
import { formatIls } from "../../lib/time.ts";
import { storeTable } from "../../pricing/store-table.ts";
import { planStores } from "../../pricing/store-plan.ts";
import { candidateStores, mergeItems, storePriced } from "./service.ts";
import { priceEachStore, type StorePricing } from "./store-pricing.ts";
import { PlanBody, PlanResponse } from "./plan-model.ts";

export const PLAN_BASKET = operation({
  method: "post",
  path: "/api/v1/basket/plan",
  operationId: "planBasket",
  audience: "pro",
  body: {
    schema: PlanBody,
    // Identifiers of the embedded demo data around Tel Aviv.
    example: { items: [{ barcode: "7291252436027", quantity: 2 }, { barcode: "7299739033158", quantity: 3 }, { barcode: "g-tomatoes", quantity: 1 }], near: "32.0853,34.7818", radius_km: 5, max_stores: 2 },
  },
  success: { schema: PlanResponse },
  errors: ["ambiguous_product"],
  summary: "Split a shopping list across nearby stores",
  tags: ["basket"],
  description:
    "Body `{ items: [{ barcode, chain_id?, quantity }], near, radius_km?, max_stores, min_coverage? }` (items as in /basket/compare/, 1–100; `radius_km` 0.1–50, default 5; `max_stores` 1–3). " +
    "The cheapest way to buy the list at at most `max_stores` of the open stores with a shop floor within the radius: `stores` (each with the items to buy there and its total), `total_ils`, the cheapest `best_single_store` and `saving_ils` (what the split saves against it). {Plan}.\n\n" +
    "**Pricing**: each item at each store exactly as the basket prices a store (its shelf price, its own promotions open to all customers, multi-buy where the quantity qualifies). An item's whole quantity goes to one store — quantities are never split — so a multi-buy applies exactly as in that store's basket. " +
    "With `min_coverage`, only stores that alone sell at least that share of the items take part.\n\n" +
    "**The plan** covers most items first, then costs least: each item goes to the cheapest store of the set. Items no store in range sells are in `missing_items`; items some store in range sells but none of the plan's (too few `max_stores`) in `unassigned_items`. " +
    "`best_single_store` is chosen by the same rule with one store; `saving_ils` is null when it does not buy the same items as the plan. " +
    "**Exact**: stores another store matches or beats on every item are set aside (no plan needs them), then every set of up to `max_stores` of the rest is scored, sets that cannot beat the best found skipped. " +
    "On pathological inputs (hundreds of stores, none beating another) the search stops after 4 million item evaluations and answers its best plan with `exact: false`: its total is then at most `total_ils − lower_bound_ils` above the cheapest plan.\n\n" +
    "Errors: 400 `invalid_parameter` with `param` (`near` missing, malformed or outside Israel, `radius_km`, `max_stores` outside 1–3, `min_coverage` outside 0–1, `items[i]…`), 400 `ambiguous_product`, 413 `payload_too_large`, 415 `unsupported_media_type`, 401/403/429 as everywhere.",
});

/** A store of the answer: its chain, store object and distance. */
function storeFields(deps: DataSet, pricing: StorePricing) {
  const chain = storeTable(deps).chains.get(pricing.store.chain_id)!;
  const { store } = pricing;
  return {
    chain_id: chain.slug,
    chain_name: chain.name,
    store: { store_id: store.store_code, branch_name: store.name ?? "", city: store.city || null, region: store.region || null },
    distance_km: roundKm(store.distance ?? 0),
  };
}

/**
 * POST /api/v1/basket/plan/: the open walk-in stores within the radius priced item by item
 * (store-pricing.ts), then the cheapest set of at most `max_stores` of them (store-plan.ts).
 */
export function planBasket(deps: DataSet, body: PlanBody) {
  const near = nearFilter(body.near, body.radius_km)!;
  const items = mergeItems(deps, { items: body.items });
  const n = items.length;
  const minCoverage = body.min_coverage ?? 0;
  const stores = candidateStores(deps, undefined, near).sort((a, b) => a.distance! - b.distance! || a.id - b.id);
  const priced = priceEachStore(deps, items, stores).filter((p) => p.found / n >= minCoverage);
  const costs = priced.map((p) => Float64Array.from(p.cells, (c) => c?.total ?? Infinity));
  const plan = planStores(costs, body.max_stores, n);
  // The best single store: most items, then lowest total (then nearest: `priced` is in distance order).
  let single: StorePricing | undefined;
  for (const p of priced) if (!single || p.found > single.found || (p.found === single.found && p.sum < single.sum)) single = p;
  const soldInRange = items.map((_, i) => costs.some((row) => row[i] !== Infinity));
  const chosen = plan.stores
    .map((s) => {
      const only = { ...priced[s]!, cells: priced[s]!.cells.map((c, i) => (plan.assignment[i] === s ? c : undefined)) };
      const lines = storePriced(items, only).lines;
      const total = lines.reduce((sum, l) => sum + l.total, 0);
      return { ...storeFields(deps, priced[s]!), items: lines.map((l) => JSON.parse(new TextDecoder().decode(l.json))), total_ils: formatIls(total) };
    })
    .sort((a, b) => a.distance_km - b.distance_km);
  const bestSingle = single === undefined ? null : { ...storeFields(deps, single), total_ils: formatIls(single.sum), items_found: single.found };
  const sameItems = single !== undefined && single.cells.every((c, i) => (c !== undefined) === (plan.assignment[i]! >= 0));
  return {
    stores: chosen,
    total_ils: formatIls(plan.total),
    best_single_store: bestSingle,
    saving_ils: sameItems ? formatIls(single!.sum - plan.total) : null,
    missing_items: items.filter((_, i) => !soldInRange[i]).map((i) => i.barcode),
    unassigned_items: items.filter((_, i) => soldInRange[i] && plan.assignment[i]! < 0).map((i) => i.barcode),
    exact: plan.exact,
    lower_bound_ils: formatIls(plan.lowerBound),
    stores_considered: priced.length,
  };
}

/** POST /api/v1/basket/plan/ (the body read by us, as the basket's). */
export function planModule() {
  return new Elysia({ name: "module.basket-plan" }).use(prebuiltJson()).use(servedData).post(
    PLAN_BASKET.path,
    async ({ request, dataSet }) => {
      requireData(dataSet);
      const body = validateBody(PlanBody, await readJsonBody(request, MAX_JSON_BODY));
      return { data: planBasket(dataSet, body), meta: { data_updated_at: dataSet.data.current.updatedAt } };
    },
    { parse: "none", response: { 200: documentedOnly(PlanResponse) } },
  );
}
