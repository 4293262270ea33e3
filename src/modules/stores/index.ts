import { Elysia } from "elysia";
import type { Feature } from "../feature.ts";
import { operation } from "../../openapi/operation.ts";
import { parseQuery } from "../../http/request/query.ts";
import { requireData } from "../../serving/require-data.ts";
import { servedData } from "../../serving/data-set.ts";
import { livemodeOf } from "../../http/request/livemode.ts";
import { StoresQuery, StoresResponse } from "./model.ts";
import { listStores } from "./service.ts";

export const GET_STORES = operation({
  method: "get",
  path: "/api/v1/stores",
  operationId: "listStores",
  audience: "free",
  query: StoresQuery,
  examples: { near: "32.7940,34.9896", chain_id: "shufersal", city: "חיפה" },
  success: { schema: StoresResponse },
  errors: ["chain_not_found", "city_not_found"],
  conditional: true,
  summary: "Stores, or stores near a point",
  tags: ["stores"],
  description:
    "The chains' stores as their Stores files describe them: chain, branch name, address, city and region, ZIP code, type (`physical`, `online`, `both`), `status` (`closed` once a newer full Stores list of the chain no longer lists the store, or when neither a list nor a file has named the store for 30 days before the chain's newest full list — a chain code no longer published under) and `coordinates`.\n\n" +
    "`coordinates` are the ones the Stores file published when it published any (some Matrix/Laib chains do; `approximate: false`); otherwise the centre of the store's city from the service's own table of Israeli localities (`approximate: true`), never looked up over the network; null when the city is not in that table.\n\n" +
    "With `near=lat,lon` (decimal degrees, inside Israel) and `radius_km` (0.1–50, default 5): the stores whose coordinates lie within the radius, nearest first, each with `distance_km` (great-circle, 0.01 km steps). Stores placed at their city's centre all share its distance: read `approximate`. Online-only and closed stores are listed (their `store_type` and `status` say so); the `near` filter of /prices/, the batch and the basket counts only open stores with a shop floor. Without `near`: every store, by chain, then store code.\n\n" +
    "Filters: `chain_id` (unknown → 404 `chain_not_found`), `city` (any common spelling, English name or CBS code). Cursor pagination (`limit` 1–100, default 20): pass `meta.next_cursor` as `cursor`, null on the last page.\n\n" +
    "Errors: 400 `invalid_parameter` with `param` (`near` malformed or outside Israel, `radius_km` out of 0.1–50 or without `near`), 400 `invalid_cursor`, 404 `chain_not_found`, 401/403/429/503 as everywhere.\n\n" +
    "Example: `GET /api/v1/stores/?near=32.0853,34.7818&radius_km=3&chain_id=shufersal`",
});

/** GET /api/v1/stores/. */
export function storesModule() {
  // Handlers read `dataSet` (live, or the sandbox for a test key): see data-set.ts.
  return new Elysia({ name: "module.stores" }).use(servedData).get(
    GET_STORES.path,
    ({ request, dataSet }) => {
      const query = parseQuery(request, StoresQuery);
      requireData(dataSet);
      const { items, nextCursor } = listStores(dataSet, query);
      return { data: items, meta: { next_cursor: nextCursor, data_updated_at: dataSet.data.current.updatedAt, livemode: livemodeOf(request) } };
    },
    {
      response: { 200: StoresResponse },
    },
  );
}

/** Stores by chain, city or distance. */
export const storesFeature: Feature = {
  name: "stores",
  operations: [GET_STORES],
  routes: () => storesModule(),
};
