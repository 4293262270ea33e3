import type { Database } from "bun:sqlite";

/** A product as the search index reads it: one row of `products` that some store sells. */
export interface ProductRow {
  id: number;
  barcode_key: string;
  /** 0 shared GTIN, a chain's id for its internal codes, -1 a generic product. */
  scope_chain_id: number;
  name: string;
  manufacturer: string | null;
  category: string | null;
  size_amount: number | null;
  size_unit: string | null;
  qty_in_package: number | null;
  /** `chains.id` of every chain selling it, comma-separated. */
  chains: string;
  /** Stores selling it, all chains together. */
  stores: number;
  /**
   * The other names chains publish for it, newline-separated (null: none): each chain's own
   * (often cut) name, and for a generic product every name of the items it groups.
   */
  other_names: string | null;
  /** 1 for a chain's item grouped into a generic product: found by its barcode only (the generic product answers for its names). */
  grouped: number;
}

// Products with at least one price row, via chain_products: the per-chain summary of
// price_current that every import refreshes in its transaction (src/db/chain-products.ts).
// A chain's item grouped into a generic product (loose produce) is found by its barcode only:
// the generic product answers for its names. Keyset pagination by products.id keeps each chunk short.
const CHUNK_SQL = `
SELECT p.id, p.barcode_key, p.scope_chain_id, p.name, p.manufacturer, p.category, p.size_amount, p.size_unit, p.qty_in_package,
       EXISTS (SELECT 1 FROM generic_members g WHERE g.product_id = p.id) AS grouped
  FROM products p
 WHERE p.id > ? AND EXISTS (SELECT 1 FROM chain_products cp WHERE cp.product_id = p.id)
 ORDER BY p.id
 LIMIT ?`;

// The chains selling the products with ids in (?1, ?2] and their stores, in the order of the chains'
// ids (one query per chunk: a GROUP BY with group_concat over the join took longer).
const SOLD_SQL = `
SELECT product_id, chain_id, store_count FROM chain_products
 WHERE product_id > ?1 AND product_id <= ?2
 ORDER BY product_id, chain_id`;

// The other names of the products with ids in (?1, ?2], one query per chunk: each product's names
// distinct and in the collation's order, as a per-product UNION gave them (that set up three
// temporary B-trees for every product, most of which have no other name).
const OTHER_NAMES_SQL = `
SELECT product_id, name FROM (
  SELECT pn.product_id, pn.name FROM product_names pn JOIN products p ON p.id = pn.product_id
   WHERE pn.product_id > ?1 AND pn.product_id <= ?2 AND pn.name <> p.name
  UNION
  SELECT g.generic_id, m.name FROM generic_members g JOIN products m ON m.id = g.product_id
   WHERE g.generic_id > ?1 AND g.generic_id <= ?2
  UNION
  SELECT g.generic_id, pn.name FROM generic_members g JOIN product_names pn ON pn.product_id = g.product_id
   WHERE g.generic_id > ?1 AND g.generic_id <= ?2)
 ORDER BY product_id, name`;

/**
 * The data version the next read will see (the `meta.data_version` row; 0 before any import).
 *
 * @example readDataVersion(db) // → 3 after three committed imports
 */
export function readDataVersion(db: Database): number {
  const row = db.query("SELECT value FROM meta WHERE key = 'data_version'").get() as { value: string } | null;
  return Number(row?.value ?? 0);
}

/** Lets the event loop run (timers, I/O, requests) between chunks of work. */
export const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Reads the sold products in chunks of `chunkSize` rows, yielding to the event loop between
 * chunks so requests keep being served. Not one snapshot: an import committing meanwhile
 * bumps the data version, and the index is rebuilt again.
 *
 * @example for await (const rows of readProducts(db)) count += rows.length
 */
export async function* readProducts(db: Database, chunkSize = 2000): AsyncGenerator<ProductRow[]> {
  const statement = db.prepare(CHUNK_SQL);
  const others = db.prepare(OTHER_NAMES_SQL);
  const sold = db.prepare(SOLD_SQL);
  try {
    let after = 0;
    for (;;) {
      const rows = statement.all(after, chunkSize) as ProductRow[]; // chains, stores, other_names: set below
      if (rows.length === 0) return;
      const last = rows[rows.length - 1]!.id;
      attachChains(rows, sold.values(after, last) as [number, number, number][]);
      attachOtherNames(rows, others.all(after, last) as { product_id: number; name: string }[]);
      yield rows;
      if (rows.length < chunkSize) return;
      after = last;
      await yieldToLoop();
    }
  } finally {
    statement.finalize();
    others.finalize();
    sold.finalize();
  }
}

/** Sets each row's `chains` and `stores` from `sold` (product id, chain id, stores; ordered by product, as the rows are). */
function attachChains(rows: ProductRow[], sold: [number, number, number][]): void {
  let n = 0;
  for (const row of rows) {
    while (n < sold.length && sold[n]![0] < row.id) n++;
    let chains = "";
    let stores = 0;
    for (; n < sold.length && sold[n]![0] === row.id; n++) {
      chains = chains === "" ? String(sold[n]![1]) : `${chains},${sold[n]![1]}`;
      stores += sold[n]![2];
    }
    row.chains = chains;
    row.stores = stores;
  }
}

/** Sets each row's `other_names` from `names` (ordered by product, as the rows are): newline-separated, null when none. */
function attachOtherNames(rows: ProductRow[], names: { product_id: number; name: string }[]): void {
  let n = 0;
  for (const row of rows) {
    while (n < names.length && names[n]!.product_id < row.id) n++;
    let list: string | null = null;
    for (; n < names.length && names[n]!.product_id === row.id; n++) list = list === null ? names[n]!.name : `${list}\n${names[n]!.name}`;
    row.other_names = list;
  }
}
