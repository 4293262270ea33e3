import type { Database, Statement } from "bun:sqlite";
import { normaliseCode, type Chain, type Registry } from "../../registry.ts";
import type { StoresFile } from "../records.ts";
import { storeChainCode } from "./chain.ts";

/** Resolves a published `City` value to the stored city and region. */
export type CityResolver = (raw: string | null) => { city: string | null; region: string | null };

export interface StoreEntry {
  id: number;
  /** Epoch ms of `prices_at` / `promos_at`, null when no such file was loaded yet. */
  pricesMs: number | null;
  promosMs: number | null;
  /** `closed_at`: the time of the full Stores list that no longer listed it; null while open. */
  closedAt: string | null;
}

const parseTime = (value: string | null) => (value ? Date.parse(value) : null);

/**
 * Store rows by (chain code, store code), cached for the run. A price or promotion file of a
 * store no Stores file has described yet creates a minimal row (codes only); a later Stores
 * file fills it in. The cache is dropped when a file is rolled back (rows are re-read).
 */
export class StoreCache {
  private entries = new Map<string, StoreEntry>();
  private readonly select: Statement;
  private readonly insert: Statement;
  private readonly setPricesAt: Statement;
  private readonly setPromosAt: Statement;

  constructor(db: Database) {
    this.select = db.prepare("SELECT id, prices_at, promos_at, closed_at FROM stores WHERE chain_code = ? AND store_code = ?");
    this.insert = db.prepare("INSERT INTO stores (chain_id, chain_code, store_code, sub_chain_code) VALUES (?, ?, ?, ?) RETURNING id");
    this.setPricesAt = db.prepare("UPDATE stores SET prices_at = ? WHERE id = ?");
    this.setPromosAt = db.prepare("UPDATE stores SET promos_at = ? WHERE id = ?");
  }

  /** The store's row, created with its codes only when unknown. */
  resolve(chainId: number, chainCode: string, storeCode: string, subChainCode: string | null): StoreEntry {
    const key = `${chainCode}-${storeCode}`;
    let entry = this.entries.get(key);
    if (entry) return entry;
    const row = this.select.get(chainCode, storeCode) as { id: number; prices_at: string | null; promos_at: string | null; closed_at: string | null } | null;
    entry = row
      ? { id: row.id, pricesMs: parseTime(row.prices_at), promosMs: parseTime(row.promos_at), closedAt: row.closed_at }
      : { id: (this.insert.get(chainId, chainCode, storeCode, subChainCode) as { id: number }).id, pricesMs: null, promosMs: null, closedAt: null };
    this.entries.set(key, entry);
    return entry;
  }

  /** Records the time of a price (`prices`) or promotion (`promos`) file loaded for the store. */
  touch(entry: StoreEntry, kind: "prices" | "promos", time: string, timeMs: number): void {
    if (kind === "prices") {
      if (entry.pricesMs !== null && entry.pricesMs >= timeMs) return;
      this.setPricesAt.run(time, entry.id);
      entry.pricesMs = timeMs;
    } else {
      if (entry.promosMs !== null && entry.promosMs >= timeMs) return;
      this.setPromosAt.run(time, entry.id);
      entry.promosMs = timeMs;
    }
  }

  /** Forgets cached rows (after a rollback). */
  clear(): void {
    this.entries = new Map();
  }
}

export interface StoresResult {
  rows: number;
  /** Records of another chain (by registry) or without a store code. */
  skipped: number;
  /** Closed stores this list lists again (opened anew). */
  reopened: number;
  /** Rows not written: the store's data is from a newer Stores list than this one. */
  older: number;
  /** `chain code-store code` of each store listed, the chain codes and sub-chains ("" for none) they were listed under. */
  listed: Set<string>;
  codes: Set<string>;
  subChains: Set<string>;
}

/**
 * Upserts the stores and sub-chains of a Stores file. Values missing from the file (null) keep
 * what is known; a file older than the row's `updated_at` changes nothing (an older list never
 * overwrites a newer one). A closed store the list names again is open again. Each record
 * carries its own chain code (a Victory file lists two); records of other chains are skipped.
 * Closing the stores a full list leaves out is closeMissingStores's (store-lifecycle.ts).
 *
 * @example loadStores(db, registry, chainIds, file, ramiLevy, "2026-11-22T05:00:00+02:00", resolveCity) // → { rows: 58, skipped: 0 }
 */
export function loadStores(
  db: Database,
  registry: Registry,
  chainIds: Map<string, number>,
  file: StoresFile,
  fileChain: { chain: Chain; code: string },
  time: string,
  resolveCity: CityResolver,
): StoresResult {
  const upsertStore = db.prepare(
    `INSERT INTO stores (chain_id, chain_code, store_code, sub_chain_code, name, address, city, region, zip, store_type, updated_at, listed_at, latitude, longitude)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (chain_code, store_code) DO UPDATE SET
       sub_chain_code = coalesce(excluded.sub_chain_code, sub_chain_code),
       name = coalesce(excluded.name, name),
       address = coalesce(excluded.address, address),
       city = coalesce(excluded.city, city),
       region = CASE WHEN excluded.city IS NULL THEN region ELSE excluded.region END,
       zip = coalesce(excluded.zip, zip),
       store_type = coalesce(excluded.store_type, store_type),
       updated_at = excluded.updated_at,
       listed_at = excluded.updated_at,
       closed_at = CASE WHEN stores.closed_at <= excluded.updated_at THEN NULL ELSE stores.closed_at END,
       latitude = CASE WHEN excluded.latitude IS NULL THEN latitude ELSE excluded.latitude END,
       longitude = CASE WHEN excluded.latitude IS NULL THEN longitude ELSE excluded.longitude END
     WHERE stores.updated_at IS NULL OR stores.updated_at <= excluded.updated_at
     RETURNING closed_at`,
  );
  const stateOf = db.prepare("SELECT closed_at, updated_at FROM stores WHERE chain_code = ? AND store_code = ?");
  const upsertSubChain = db.prepare(
    `INSERT INTO sub_chains (chain_id, code, name) VALUES (?, ?, ?)
     ON CONFLICT (chain_id, code) DO UPDATE SET name = coalesce(excluded.name, name)`,
  );
  const chainId = chainIds.get(fileChain.chain.slug)!;
  let rows = 0;
  let skipped = 0;
  let reopened = 0;
  let older = 0;
  const listed = new Set<string>();
  const codes = new Set<string>();
  const subChains = new Set<string>();
  for (const store of file.stores) {
    const published = store.chainCode?.trim() ? normaliseCode(store.chainCode.trim()) : fileChain.code;
    const storeCode = store.storeCode?.trim() ? normaliseCode(store.storeCode.trim()) : "";
    if (registry.byCode.get(published) !== fileChain.chain || !storeCode) {
      skipped++;
      continue;
    }
    const code = storeChainCode(fileChain.chain, published);
    const subChain = store.subChainCode?.trim() ? normaliseCode(store.subChainCode.trim()) : null;
    const { city, region } = resolveCity(store.city);
    const before = stateOf.get(code, storeCode) as { closed_at: string | null; updated_at: string | null } | null;
    const after = upsertStore.get(chainId, code, storeCode, subChain, store.name, store.address, city, region, store.zip, store.storeType, time, time, store.latitude ?? null, store.longitude ?? null) as {
      closed_at: string | null;
    } | null;
    if (!after) older++;
    else if (before?.closed_at && after.closed_at === null) reopened++;
    if (subChain) upsertSubChain.run(chainId, subChain, store.subChainName);
    listed.add(`${code}-${storeCode}`);
    codes.add(code);
    subChains.add(subChain ?? "");
    rows++;
  }
  return { rows, skipped, reopened, older, listed, codes, subChains };
}
