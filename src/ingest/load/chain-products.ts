import type { Database, Statement } from "bun:sqlite";
import { BatchInsert } from "./batch.ts";

/**
 * The `chain_products` summary, computed in one ordered pass instead of SQL's three sorts.
 * Same rules as src/db/chain-products.ts (`refreshChainProducts`): per chain and product the
 * store count, min and max over all the chain's stores, and the chain price = the most common
 * shelf price (tie → lower) over stores outside Eilat (city 'אילת'), or over the Eilat stores
 * when the chain sells the product only there. 3–5× faster on national data; tested to give
 * the same rows.
 */

const EILAT = "אילת";

interface StoreMap {
  chainOf: Int32Array;
  eilat: Uint8Array;
}

function storeMap(db: Database): StoreMap {
  const rows = db.query("SELECT id, chain_id, coalesce(city, '') = ? AS eilat FROM stores").values(EILAT) as [number, number, number][];
  const size = rows.reduce((m, r) => Math.max(m, r[0]), 0) + 1;
  const map: StoreMap = { chainOf: new Int32Array(size), eilat: new Uint8Array(size) };
  for (const [id, chain, eilat] of rows) {
    map.chainOf[id] = chain;
    map.eilat[id] = eilat;
  }
  return map;
}

/** Most common value of an ascending list; the lowest among equally common ones. */
function modeOf(sorted: number[]): number {
  let best = sorted[0]!;
  let bestRun = 0;
  for (let i = 0; i < sorted.length; ) {
    let j = i + 1;
    while (j < sorted.length && sorted[j] === sorted[i]) j++;
    if (j - i > bestRun) {
      bestRun = j - i;
      best = sorted[i]!;
    }
    i = j;
  }
  return best;
}

type Row = [chainId: number, productId: number, storeCount: number, min: number, max: number, mode: number];

/** Folds one product's price rows (ascending by price) into one row per chain. */
class ProductFold {
  private readonly main: number[][] = [];
  private readonly eilatOnly: number[][] = [];
  private readonly chains: number[] = [];

  constructor(private readonly stores: StoreMap) {}

  add(storeId: number, price: number): void {
    const chain = this.stores.chainOf[storeId]!;
    if (!this.main[chain]) {
      this.main[chain] = [];
      this.eilatOnly[chain] = [];
    }
    if (this.main[chain]!.length === 0 && this.eilatOnly[chain]!.length === 0) this.chains.push(chain);
    (this.stores.eilat[storeId] ? this.eilatOnly : this.main)[chain]!.push(price);
  }

  emit(productId: number, out: (row: Row) => void): void {
    for (const chain of this.chains) {
      const main = this.main[chain]!;
      const eilat = this.eilatOnly[chain]!;
      const min = Math.min(main.length ? main[0]! : Infinity, eilat.length ? eilat[0]! : Infinity);
      const max = Math.max(main.length ? main[main.length - 1]! : -Infinity, eilat.length ? eilat[eilat.length - 1]! : -Infinity);
      out([chain, productId, main.length + eilat.length, min, max, modeOf(main.length ? main : eilat)]);
      main.length = 0;
      eilat.length = 0;
    }
    this.chains.length = 0;
  }
}

function barcodes(db: Database): string[] {
  const out: string[] = [];
  for (const [id, barcode] of db.query("SELECT id, barcode FROM products").values() as [number, string][]) out[id] = barcode;
  return out;
}

const byBarcode = (codes: string[]) => (a: Row, b: Row) => {
  const x = codes[a[1]]!, y = codes[b[1]]!;
  return x < y ? -1 : x > y ? 1 : a[1] - b[1];
};

/**
 * Rebuilds all of `chain_products` from `price_current` (run inside the import's transaction).
 * Reads prices through the (product_id, price) index in chunks, so memory stays small.
 * @example rebuildChainProducts(db) // → rows written
 */
export function rebuildChainProducts(db: Database): number {
  db.run("DELETE FROM chain_products");
  const stores = storeMap(db);
  const codes = barcodes(db);
  const perChain = new Map<number, Row[]>();
  const collect = (row: Row) => {
    let list = perChain.get(row[0]);
    if (!list) perChain.set(row[0], (list = []));
    list.push(row);
  };
  const fold = new ProductFold(stores);
  const chunk = db.prepare("SELECT product_id, store_id, price FROM price_current WHERE product_id >= ? AND product_id < ? ORDER BY product_id, price");
  const maxId = (db.query("SELECT max(id) AS m FROM products").get() as { m: number | null }).m ?? 0;
  const STEP = 4096;
  for (let from = 0; from <= maxId; from += STEP) {
    let current = -1;
    for (const [productId, storeId, price] of chunk.values(from, from + STEP) as [number, number, number][]) {
      if (productId !== current) {
        if (current >= 0) fold.emit(current, collect);
        current = productId;
      }
      fold.add(storeId, price);
    }
    if (current >= 0) fold.emit(current, collect);
  }
  const insert = new BatchInsert(db, "INSERT INTO chain_products (chain_id, barcode, product_id, store_count, price_min, price_max, price_mode) VALUES", 7);
  let written = 0;
  for (const chain of [...perChain.keys()].sort((a, b) => a - b)) {
    const rows = perChain.get(chain)!.sort(byBarcode(codes));
    for (const r of rows) insert.add(r[0], codes[r[1]]!, r[1], r[2], r[3], r[4], r[5]);
    written += rows.length;
  }
  insert.flush();
  return written;
}

/**
 * Recomputes `chain_products` for the given products only (an import that touched few of them).
 * @example refreshProducts(db, [17, 42]) // → rows written
 */
export function refreshChainProductsFor(db: Database, productIds: Iterable<number>): number {
  const stores = storeMap(db);
  const remove: Statement = db.prepare("DELETE FROM chain_products WHERE product_id = ?");
  const read: Statement = db.prepare("SELECT store_id, price FROM price_current WHERE product_id = ? ORDER BY price");
  const barcode: Statement = db.prepare("SELECT barcode FROM products WHERE id = ?");
  const insert = db.prepare("INSERT INTO chain_products (chain_id, barcode, product_id, store_count, price_min, price_max, price_mode) VALUES (?, ?, ?, ?, ?, ?, ?)");
  const fold = new ProductFold(stores);
  let written = 0;
  for (const productId of [...productIds].sort((a, b) => a - b)) {
    remove.run(productId);
    const rows = read.values(productId) as [number, number][];
    if (rows.length === 0) continue;
    const code = (barcode.get(productId) as { barcode: string }).barcode;
    for (const [storeId, price] of rows) fold.add(storeId, price);
    fold.emit(productId, (r) => {
      insert.run(r[0], code, r[1], r[2], r[3], r[4], r[5]);
      written++;
    });
  }
  return written;
}
