import { requireCity } from "../../http/request/city-filter.ts";
import type { DataSet } from "../../deps.ts";
import { cursorScope, decodeCursor, encodeCursor } from "../../http/encoding/cursor.ts";
import { roundKm, type Near } from "../../geo/distance.ts";
import { nearFilter } from "../../http/request/near-params.ts";
import { requireChain } from "../chains/service.ts";
import { storeDistance, storeLocations, type StoreLocation } from "../../pricing/locations.ts";
import type * as z from "zod";
import type { StoreItem, StoresQuery } from "./model.ts";

const STORE_TYPES: Record<number, "physical" | "online" | "both"> = { 1: "physical", 2: "online", 3: "both" };

function storeItem(store: StoreLocation, distance: number | null): z.infer<typeof StoreItem> {
  return {
    store_id: store.storeCode,
    chain_id: store.chainSlug,
    chain_name: store.chainName,
    branch_name: store.name ?? "",
    address: store.address,
    city: store.city,
    region: store.region as z.infer<typeof StoreItem>["region"],
    zip: store.zip,
    store_type: store.storeType === null ? null : (STORE_TYPES[store.storeType] ?? null),
    status: store.status,
    coordinates: store.lat === null || store.lon === null ? null : { lat: store.lat, lon: store.lon, approximate: store.approximate },
    ...(distance === null ? {} : { distance_km: roundKm(distance) }),
  };
}

const isPosition = (k: unknown): k is number => Number.isInteger(k) && (k as number) >= 0;

/**
 * GET /api/v1/stores/: the stores of the data, optionally of a chain and a city. With `near`:
 * only stores whose position lies within `radius_km` of the point (any type and status, each
 * item says which), nearest first (ties by chain, then store code); without: by chain, then
 * store code. Pages by position in that order, bound to the data version and the query.
 */
export function listStores(deps: DataSet, query: z.infer<typeof StoresQuery>): { items: z.infer<typeof StoreItem>[]; nextCursor: string | null } {
  if (query.chain_id !== undefined) requireChain(deps, query.chain_id, "chain_id");
  const near: Near | undefined = nearFilter(query.near, query.radius_km);
  const city = query.city === undefined ? undefined : requireCity(deps, query.city);
  let rows: { store: StoreLocation; distance: number | null }[] = [];
  for (const store of storeLocations(deps).stores) {
    if (query.chain_id !== undefined && store.chainSlug !== query.chain_id) continue;
    if (city !== undefined && store.city !== city) continue;
    if (!near) {
      rows.push({ store, distance: null });
      continue;
    }
    const distance = storeDistance(store, near);
    if (distance !== null && distance <= near.radiusKm) rows.push({ store, distance });
  }
  // Already in chain, store-code order (storeLocations); a stable sort keeps it among equal distances.
  if (near) rows = rows.sort((a, b) => a.distance! - b.distance!);
  const version = cursorScope(deps.data);
  const key = JSON.stringify(["stores", near ? [near.lat, near.lon, near.radiusKm] : null, query.chain_id ?? null, city ?? null, query.limit]);
  const start = query.cursor ? decodeCursor(query.cursor, version, key, isPosition) : 0;
  const page = rows.slice(start, start + query.limit);
  const end = start + page.length;
  return { items: page.map((r) => storeItem(r.store, r.distance)), nextCursor: end < rows.length ? encodeCursor(version, key, end) : null };
}
