import type { PricingData } from "../deps.ts";
import type { Near } from "../geo/distance.ts";
import { storesWithin } from "./locations.ts";
import type { StoreFilter } from "./queries.ts";

/** The filters of a prices question: /prices/'s query, a batch's, the basket's. */
export interface PriceQuery {
  chainId?: string;
  /** Only these chains (slugs): the batch's `chain_ids`. */
  chainIds?: readonly string[];
  city?: string;
  region?: string;
  /** Only stores within a radius of a point (`near`, `radius_km`). */
  near?: Near;
}

/**
 * The store filter of a prices question, with the distance of each store in the `near` radius
 * (by store db id). The stores in the radius are found once per question (a pass over the
 * store table of the data version, see locations.ts) and passed to SQL as a set of ids.
 */
export function storeFilterOf(deps: Pick<PricingData, "tables">, query: PriceQuery): { filter: StoreFilter; distances: Map<number, number> | null } {
  const distances = query.near ? storesWithin(deps, query.near) : null;
  return {
    filter: { chainId: query.chainId, chainIds: query.chainIds, city: query.city, region: query.region, storeIds: distances ? [...distances.keys()] : undefined },
    distances,
  };
}
