import { requireCity } from "../../http/request/city-filter.ts";
import type { DataSet } from "../../deps.ts";
import { requireChain } from "../chains/service.ts";
import type { PriceQuery } from "./service.ts";
import { nearFilter } from "../../http/request/near-params.ts";
import type { Point } from "../../geo/distance.ts";

/**
 * The store filters of /prices/ as the queries take them: an unknown `chain_id` is 404
 * chain_not_found (not an empty answer), and `city` is matched by its canonical name, so any
 * spelling resolveCity knows (`תל אביב`, `ת"א`, `5000`) finds the stores of `תל אביב-יפו`.
 * `near` (a validated point) with `radius_km` (default 5) keeps the stores within the radius;
 * `radius_km` alone is 400.
 */
export function priceFilters(deps: DataSet, query: { chain_id?: string; city?: string; region?: string; near?: Point; radius_km?: number }): PriceQuery {
  if (query.chain_id !== undefined) requireChain(deps, query.chain_id, "chain_id");
  const near = nearFilter(query.near, query.radius_km);
  return {
    chainId: query.chain_id,
    city: query.city === undefined ? undefined : requireCity(deps, query.city),
    region: query.region,
    ...(near ? { near } : {}),
  };
}
