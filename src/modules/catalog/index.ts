import { Elysia } from "elysia";
import type { Feature } from "../feature.ts";
import { operation } from "../../openapi/operation.ts";
import { parseQuery } from "../../http/request/query.ts";
import { requireData } from "../../serving/require-data.ts";
import { requestState } from "../../http/request/request-state.ts";
import { CatalogParams, CatalogQuery, CatalogResponse } from "./model.ts";
import { cachedCatalog } from "./service.ts";
import { documentedOnly, prebuiltJson } from "../../http/prebuilt/prebuilt-json.ts";
import { servedData } from "../../serving/data-set.ts";

export const GET_CATALOG = operation({
  method: "get",
  path: "/api/v1/chains/:id/catalog",
  operationId: "getChainCatalog",
  audience: "basic",
  params: CatalogParams,
  query: CatalogQuery,
  examples: { id: "shufersal", q: "חלב", category: "dairy" },
  success: { schema: CatalogResponse },
  errors: ["chain_not_found"],
  conditional: true,
  summary: "A chain's product catalog",
  tags: ["chains"],
  description:
    "The chain's products ordered by barcode (as published), with the lowest and highest shelf price among its stores and the number of stores selling each (over its stores outside Eilat, whose VAT-free prices are not comparable, unless it sells the product only there — as the chain entries of /prices/), and whether an active promotion open to all customers lowers the price of one unit. " +
    "Filters: `q` (name contains the text, or barcode starts with the digits) and `category`. Cursor pagination: pass `meta.next_cursor` as `cursor`; null on the last page. A cursor is bound to the data version, the filters and `limit` (`invalid_cursor` otherwise).\n\n" +
    "Errors: 400 `invalid_parameter` (with `param`; `id` when it is not a lowercase slug) / `invalid_cursor`, 404 `chain_not_found` (a slug no chain has), 401/403/429 as everywhere.",
});

/** GET /api/v1/chains/{id}/catalog/. */
export function catalogModule() {
  return new Elysia({ name: "module.catalog" }).use(prebuiltJson()).use(servedData).get(
    GET_CATALOG.path,
    ({ params, request, dataSet }) => {
      const query = parseQuery(request, CatalogQuery);
      requireData(dataSet);
      const { value, snapshot } = cachedCatalog(dataSet, params.id, query);
      requestState(request).snapshot = snapshot;
      return { data: value.items, meta: { chain_id: params.id, next_cursor: value.nextCursor, data_updated_at: snapshot.updatedAt } };
    },
    {
      params: CatalogParams,
      // Pages are cached and serialized once; tests check them against the schema.
      response: { 200: documentedOnly(CatalogResponse) },
    },
  );
}

/** A chain's catalog. */
export const catalogFeature: Feature = {
  name: "catalog",
  operations: [GET_CATALOG],
  routes: () => catalogModule(),
};
