import type { Database } from "bun:sqlite";
import { BatchInsert } from "./batch.ts";

// Written between files past this many rows: ~100 MB of buffer and sort keys.
const FLUSH_AT = 4_000_000;

/**
 * The run's `price_history` rows, held in typed arrays and written sorted by the table's
 * primary key (product, store, then arrival order = time order, since a store's older price
 * files are skipped). Files arrive store by store while the table is clustered product by
 * product: sorted writes turn millions of random B-tree inserts into one ordered pass.
 *
 * Rows of one (product, store, time) keep the last one (a Price published at the same minute
 * as its PriceFull). `mark()`/`truncate()` drop a rolled-back file's rows; `flush()` must run
 * between files only (it writes rows of files already past their savepoint).
 *
 * @example
 * const history = new HistoryBuffer(db);
 * history.add(productId, storeId, "2026-11-22T05:00:00+02:00", 1290);
 * history.flush(); // → rows written
 */
export class HistoryBuffer {
  private products = new Int32Array(1 << 16);
  private stores = new Int32Array(1 << 16);
  private timeIds = new Int32Array(1 << 16);
  private prices = new Float64Array(1 << 16);
  private readonly times: string[] = [];
  private readonly timeIndex = new Map<string, number>();
  private count = 0;
  private readonly insert: BatchInsert;

  constructor(db: Database) {
    this.insert = new BatchInsert(
      db,
      "INSERT INTO price_history (product_id, store_id, valid_from, price) VALUES",
      4,
      "ON CONFLICT (product_id, store_id, valid_from) DO UPDATE SET price = excluded.price",
    );
  }

  get size(): number {
    return this.count;
  }

  /** Holds one history row; `price` null = no longer sold. */
  add(productId: number, storeId: number, time: string, price: number | null): void {
    this.addAt(productId, storeId, this.timeId(time), price);
  }

  /** The number standing for a `valid_from` time in {@link addAt} (look it up once per file). */
  timeId(time: string): number {
    let timeId = this.timeIndex.get(time);
    if (timeId === undefined) {
      timeId = this.times.push(time) - 1;
      this.timeIndex.set(time, timeId);
    }
    return timeId;
  }

  /** {@link add} with the time as {@link timeId} gave it. */
  addAt(productId: number, storeId: number, timeId: number, price: number | null): void {
    if (this.count === this.products.length) this.grow();
    const i = this.count++;
    this.products[i] = productId;
    this.stores[i] = storeId;
    this.timeIds[i] = timeId;
    this.prices[i] = price === null ? Number.NaN : price;
  }

  /** Position to come back to if the current file is rolled back. */
  mark(): number {
    return this.count;
  }

  truncate(mark: number): void {
    this.count = Math.min(this.count, mark);
  }

  /** True when the buffer should be written before the next file (bounds memory). */
  get full(): boolean {
    return this.count >= FLUSH_AT;
  }

  /** Writes every held row in primary-key order and empties the buffer. */
  flush(): number {
    const n = this.count;
    if (n === 0) return 0;
    for (const i of this.order(n)) {
      const price = this.prices[i]!;
      this.insert.add(this.products[i]!, this.stores[i]!, this.times[this.timeIds[i]!]!, Number.isNaN(price) ? null : price);
    }
    this.insert.flush();
    this.count = 0;
    return n;
  }

  /**
   * Row indexes sorted by (product, store, arrival): two stable counting sorts (by store, then
   * by product) — linear, no comparison and no per-row allocation.
   */
  private order(n: number): Int32Array {
    let maxProduct = 0;
    let maxStore = 0;
    for (let i = 0; i < n; i++) {
      if (this.products[i]! > maxProduct) maxProduct = this.products[i]!;
      if (this.stores[i]! > maxStore) maxStore = this.stores[i]!;
    }
    const byStore = countingSort(this.stores, n, maxStore, null);
    return countingSort(this.products, n, maxProduct, byStore);
  }

  private grow(): void {
    const size = this.products.length * 2;
    const grow = <T extends Int32Array | Float64Array>(a: T, make: (n: number) => T) => {
      const b = make(size);
      b.set(a);
      return b;
    };
    this.products = grow(this.products, (n) => new Int32Array(n));
    this.stores = grow(this.stores, (n) => new Int32Array(n));
    this.timeIds = grow(this.timeIds, (n) => new Int32Array(n));
    this.prices = grow(this.prices, (n) => new Float64Array(n));
  }
}

/** Indexes `from` (or 0…n−1) stably sorted by `keys[index]` (non-negative integers up to `max`). */
function countingSort(keys: Int32Array, n: number, max: number, from: Int32Array | null): Int32Array {
  const starts = new Int32Array(max + 2);
  for (let i = 0; i < n; i++) starts[keys[i]! + 1]!++;
  for (let k = 1; k < starts.length; k++) starts[k]! += starts[k - 1]!;
  const out = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    const i = from ? from[k]! : k;
    out[starts[keys[i]!]!++] = i;
  }
  return out;
}
