import type { Database, Statement } from "bun:sqlite";
import type { ProductCache } from "./products.ts";
import type { PriceRows } from "./price-rows.ts";
import { BatchInsert } from "./batch.ts";
import type { HistoryBuffer } from "./history.ts";

export interface PriceOptions {
  /** PriceFull: items absent from the file are no longer sold there (removed, history NULL). */
  replace: boolean;
  /** The file's time: history rows start here; fallback for a missing PriceUpdateDate. */
  time: string;
  timeMs: number;
}

export interface PriceResult {
  /** Price rows in the file. */
  rows: number;
  inserted: number;
  changed: number;
  unchanged: number;
  removed: number;
  /** Rows repeating an item already listed in the same file (the last one wins). */
  duplicates: number;
}

/** Prepared statements of the price loader, one set per connection and run. */
export class PriceStatements {
  readonly storeRows: Statement;
  readonly oneRow: Statement;
  /** New rows, written in batches (flushed at the end of each file). */
  readonly insert: BatchInsert;
  readonly update: Statement;
  readonly remove: Statement;
  /** Products whose current price changed in some store this run (for chain_products). */
  readonly touched = new Set<number>();

  constructor(db: Database) {
    this.storeRows = db.prepare("SELECT product_id, price, updated_at, allow_discount FROM price_current WHERE store_id = ?");
    this.oneRow = db.prepare("SELECT product_id, price, updated_at, allow_discount FROM price_current WHERE store_id = ? AND product_id = ?");
    this.insert = new BatchInsert(db, "INSERT INTO price_current (store_id, product_id, price, updated_at, allow_discount) VALUES", 5);
    this.update = db.prepare("UPDATE price_current SET price = ?, updated_at = ?, allow_discount = ? WHERE store_id = ? AND product_id = ?");
    this.remove = db.prepare("DELETE FROM price_current WHERE store_id = ? AND product_id = ?");
  }
}

type Current = [productId: number, price: number, updatedAt: string, allowDiscount: number];

// Below this many items a delta file looks its rows up one by one instead of reading the store.
const POINT_LOOKUP_LIMIT = 200;

/**
 * Loads one store's price file. A change of price (or a new item) writes `price_current` and a
 * `price_history` row at the file's time; an unchanged price writes nothing (only an AllowDiscount
 * change is written; `updated_at` stays the time the price took effect). With `replace` (a complete
 * PriceFull), items the store no longer lists are deleted and get a history row with price
 * NULL. Rows are written in primary-key order (product id), new ones in multi-row batches;
 * history rows go to the run's HistoryBuffer (written sorted at the end of the run).
 *
 * @example loadPrices(statements, products, history, storeId, chainId, recordRows(items), { replace: true, time, timeMs })
 * // → { rows: 3500, inserted: 12, changed: 104, unchanged: 3384, removed: 7, duplicates: 0 }
 */
export function loadPrices(
  st: PriceStatements,
  products: ProductCache,
  history: HistoryBuffer,
  storeId: number,
  chainId: number,
  rows: PriceRows,
  options: PriceOptions,
): PriceResult {
  const { time, timeMs } = options;
  // Product id → row index in the file (the last row of a repeated item counts).
  const incoming = new Map<number, number>();
  let duplicates = 0;
  for (let i = 0; i < rows.count; i++) {
    const id = products.upsert(rows, i, chainId, time, timeMs);
    if (incoming.has(id)) duplicates++;
    incoming.set(id, i);
  }

  const existing = new Map<number, Current>();
  if (options.replace || incoming.size > POINT_LOOKUP_LIMIT) {
    for (const row of st.storeRows.values(storeId) as Current[]) existing.set(row[0], row);
  } else {
    for (const id of incoming.keys()) {
      const row = st.oneRow.values(storeId, id)[0] as Current | undefined;
      if (row) existing.set(id, row);
    }
  }

  const ids = Float64Array.from(incoming.keys()).sort();
  let inserted = 0;
  let changed = 0;
  let unchanged = 0;
  for (const id of ids) {
    const i = incoming.get(id)!;
    const price = rows.price(i);
    const allow = rows.allowDiscount(i) ? 1 : 0;
    const old = existing.get(id);
    if (!old) {
      st.insert.add(storeId, id, price, rows.updatedAt(i) ?? time, allow);
      history.add(id, storeId, time, price);
      st.touched.add(id);
      inserted++;
    } else if (old[1] !== price) {
      st.update.run(price, rows.updatedAt(i) ?? time, allow, storeId, id);
      history.add(id, storeId, time, price);
      st.touched.add(id);
      changed++;
    } else {
      // Same price: updated_at stays the time this price took effect (some chains restamp
      // PriceUpdateDate on every file; rewriting every row daily would cost more than the load).
      if (old[3] !== allow) st.update.run(price, old[2], allow, storeId, id);
      unchanged++;
    }
  }
  st.insert.flush();

  let removed = 0;
  if (options.replace) {
    const gone: number[] = [];
    for (const id of existing.keys()) if (!incoming.has(id)) gone.push(id);
    gone.sort((a, b) => a - b);
    for (const id of gone) {
      st.remove.run(storeId, id);
      history.add(id, storeId, time, null);
      st.touched.add(id);
    }
    removed = gone.length;
  }
  return { rows: rows.count, inserted, changed, unchanged, removed, duplicates };
}
