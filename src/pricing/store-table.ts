import type { Database } from "bun:sqlite";
import type { PricingData } from "../deps.ts";
import type { PerVersion } from "./per-version.ts";
import { stmt } from "../db/statements.ts";
import { isEilatCity } from "./eilat.ts";

/** What folds over a product's store rows need of every store, per data version. */
export interface StoreTable {
  version: number;
  chainOf: Int32Array;
  eilat: Uint8Array;
  /** The store's prices_at, or null (then its rows' updated_at must be read: the SQL path). */
  pricesAt: (string | null)[];
  chains: Map<number, { slug: string; name: string }>;
  /** chains.id of a slug, when known. */
  chainIdOf?: (slug: string) => number | null;
}

declare module "../deps.ts" {
  interface DataTables {
    /** Every store's chain, Eilat flag and prices_at (store-table.ts). */
    stores: PerVersion<StoreTable>;
  }
}

/**
 * The data set's store table, read once per data version.
 * @example storeTable(deps).chainOf[storeId] // 3
 */
export function storeTable(deps: Pick<PricingData, "tables">): StoreTable {
  return deps.tables.stores.get();
}

/**
 * Every store's chain, Eilat flag and prices_at, and every chain's slug and name: folds over a
 * product's rows (prices, history) then need no join.
 */
export function readStoreTable(db: Database, version: number): StoreTable {
  const rows = stmt(db, "SELECT id, chain_id, city, prices_at FROM stores").values() as [number, number, string | null, string | null][];
  const size = rows.reduce((m, r) => Math.max(m, r[0]), 0) + 1;
  const table: StoreTable = { version, chainOf: new Int32Array(size), eilat: new Uint8Array(size), pricesAt: [], chains: new Map() };
  for (const [id, chain, city, pricesAt] of rows) {
    table.chainOf[id] = chain;
    table.eilat[id] = isEilatCity(city) ? 1 : 0;
    table.pricesAt[id] = pricesAt;
  }
  const bySlug = new Map<string, number>();
  for (const c of stmt(db, "SELECT id, slug, name FROM chains").all() as { id: number; slug: string; name: string }[]) {
    table.chains.set(c.id, { slug: c.slug, name: c.name });
    bySlug.set(c.slug, c.id);
  }
  table.chainIdOf = (slug) => bySlug.get(slug) ?? null;
  return table;
}

