import type { Database } from "bun:sqlite";
import type { PricingData } from "../deps.ts";
import type { PerVersion } from "./per-version.ts";
import { stmt } from "../db/statements.ts";
import { distanceKm, type Near } from "../geo/distance.ts";
import { localityCentre } from "../geo/locality-centroids.ts";

/** A store as the stores endpoint and the `near` filters see it. */
export interface StoreLocation {
  id: number;
  chainDbId: number;
  chainSlug: string;
  chainName: string;
  storeCode: string;
  name: string | null;
  address: string | null;
  city: string | null;
  region: string | null;
  zip: string | null;
  /** 1 physical, 2 online, 3 both; null when the file did not say. */
  storeType: number | null;
  /** `closed` once a newer full Stores list of its chain no longer lists it, or its code fell silent (store-lifecycle.ts). */
  status: "open" | "closed";
  /** Where the store is: the Stores file's coordinates, else its city's centre (approximate); null when neither is known. */
  lat: number | null;
  lon: number | null;
  approximate: boolean;
}

interface Locations {
  version: number;
  stores: StoreLocation[];
  byId: Map<number, StoreLocation>;
}

declare module "../deps.ts" {
  interface DataTables {
    /** Every store with its position (locations.ts). */
    locations: PerVersion<Locations>;
  }
}

/** The data set's store locations, read once per data version. */
export function storeLocations(deps: Pick<PricingData, "tables">): Locations {
  return deps.tables.locations.get();
}

/**
 * Every store with its position, read once per data version (a few thousand rows). A store's
 * position is the coordinates its Stores file published, else the centre of its city from
 * data/locality-centroids.json (flagged `approximate`), never a network look-up.
 */
export function readLocations(db: Database, version: number): Locations {
  const rows = stmt(
    db,
    // closed_at: set when a newer full Stores list of the chain no longer lists the store (store-lifecycle.ts).
    `SELECT s.id, s.chain_id, c.slug, c.name AS chain_name, s.store_code, s.name, s.address, s.city, s.region, s.zip, s.store_type, s.latitude, s.longitude,
            s.closed_at
       FROM stores s JOIN chains c ON c.id = s.chain_id
      ORDER BY c.slug, length(s.store_code), s.store_code`,
  ).values() as [number, number, string, string, string, string | null, string | null, string | null, string | null, string | null, number | null, number | null, number | null, string | null][];
  const stores = rows.map(([id, chainDbId, chainSlug, chainName, storeCode, name, address, city, region, zip, storeType, latitude, longitude, closedAt]): StoreLocation => {
    const published = latitude !== null && longitude !== null;
    const centre = published ? undefined : localityCentre(city);
    return {
      id,
      chainDbId,
      chainSlug,
      chainName,
      storeCode,
      name,
      address,
      city: city || null,
      region: region || null,
      zip,
      storeType,
      status: closedAt === null ? "open" : "closed",
      lat: published ? latitude : (centre?.lat ?? null),
      lon: published ? longitude : (centre?.lon ?? null),
      approximate: !published,
    };
  });
  return { version, stores, byId: new Map(stores.map((s) => [s.id, s])) };
}

/** Online-only stores (StoreType 2) have no shop floor to walk to, closed ones no longer open: never "near" anything. */
export function isWalkIn(store: StoreLocation): boolean {
  return store.storeType !== 2 && store.status === "open";
}

/** Distance from the `near` point to a store, or null when the store has no position. */
export function storeDistance(store: StoreLocation, near: Near): number | null {
  if (store.lat === null || store.lon === null) return null;
  return distanceKm(near, { lat: store.lat, lon: store.lon });
}

/**
 * The db ids of the open walk-in stores within `near.radiusKm` of the point, with their distances.
 * @example storesWithin(deps, { lat: 32.08, lon: 34.78, radiusKm: 5 }).get(12) // 1.37
 */
export function storesWithin(deps: Pick<PricingData, "tables">, near: Near): Map<number, number> {
  const out = new Map<number, number>();
  for (const store of storeLocations(deps).stores) {
    if (!isWalkIn(store)) continue;
    const d = storeDistance(store, near);
    if (d !== null && d <= near.radiusKm) out.set(store.id, d);
  }
  return out;
}
