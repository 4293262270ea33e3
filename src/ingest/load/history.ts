import type { Database } from "bun:sqlite";
import { BatchInsert } from "./batch.ts";

// Written between files past this many rows: 12 bytes a row (~50 MB) plus 8 of sort keys at
// the write. A national first import (~7 M new price rows) writes its history in two passes,
// the second merging into the first: at 8 M rows (one pass) it measured 190k rows/s at a peak
// RSS of 1,007 MiB, at 4 M 173k rows/s at 861 MiB — the memory bound matters more than the
// ~9 % on a first import (daily imports hold far fewer history rows and never reach it).
const FLUSH_AT = 4_000_000;

const CHUNK_BITS = 20;
const CHUNK = 1 << CHUNK_BITS;
const MASK = CHUNK - 1;

/** One chunk of held rows (fixed size: growing never copies, and there is no slack to speak of). */
interface Chunk {
  products: Int32Array;
  prices: Float64Array;
}

/**
 * The run's `price_history` rows, held in typed arrays and written sorted by the table's
 * primary key (product, store, then arrival order = time order, since a store's older price
 * files are skipped). Files arrive store by store while the table is clustered product by
 * product: sorted writes turn millions of random B-tree inserts into one ordered pass.
 *
 * Rows come in runs of one (store, time) — a file's rows — so a row holds only its product
 * and price (12 bytes); the runs hold the store and time.
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
  private readonly chunks: Chunk[] = [];
  private readonly times: string[] = [];
  private readonly timeIndex = new Map<string, number>();
  /** Runs of rows with one store and time: first row, store, time id. */
  private runStarts: number[] = [];
  private runStores: number[] = [];
  private runTimes: number[] = [];
  private lastStore = -1;
  private lastTime = -1;
  private count = 0;
  /** Rows held over the run with price null (an item no longer sold), written or not. */
  nullRows = 0;
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
    const i = this.count;
    if (storeId !== this.lastStore || timeId !== this.lastTime) {
      this.runStarts.push(i);
      this.runStores.push(storeId);
      this.runTimes.push(timeId);
      this.lastStore = storeId;
      this.lastTime = timeId;
    }
    if (i >>> CHUNK_BITS === this.chunks.length) this.chunks.push({ products: new Int32Array(CHUNK), prices: new Float64Array(CHUNK) });
    const chunk = this.chunks[i >>> CHUNK_BITS]!;
    chunk.products[i & MASK] = productId;
    if (price === null) this.nullRows++;
    chunk.prices[i & MASK] = price === null ? Number.NaN : price;
    this.count = i + 1;
  }

  /** Position to come back to if the current file is rolled back. */
  mark(): number {
    return this.count;
  }

  truncate(mark: number): void {
    if (mark >= this.count) return;
    this.count = mark;
    let runs = this.runStarts.length;
    while (runs > 0 && this.runStarts[runs - 1]! >= mark) runs--;
    this.runStarts.length = this.runStores.length = this.runTimes.length = runs;
    // The next row opens a run of its own.
    this.lastStore = this.lastTime = -1;
  }

  /** True when the buffer should be written before the next file (bounds memory). */
  get full(): boolean {
    return this.count >= FLUSH_AT;
  }

  /** Writes every held row in primary-key order and empties the buffer. */
  flush(): number {
    const n = this.count;
    if (n === 0) return 0;
    const { rows, runOf } = this.order(n);
    for (let k = 0; k < n; k++) {
      const i = rows[k]!;
      const chunk = this.chunks[i >>> CHUNK_BITS]!;
      const price = chunk.prices[i & MASK]!;
      const run = runOf[k]!;
      this.insert.add(chunk.products[i & MASK]!, this.runStores[run]!, this.times[this.runTimes[run]!]!, Number.isNaN(price) ? null : price);
    }
    this.insert.flush();
    this.count = 0;
    this.runStarts = [];
    this.runStores = [];
    this.runTimes = [];
    this.lastStore = this.lastTime = -1;
    // Chunks past the first are let go: a big first import should not keep them for the run.
    this.chunks.length = Math.min(this.chunks.length, 1);
    return n;
  }

  /**
   * Row indexes sorted by (product, store, arrival), with each row's run: runs ordered by
   * store (stable), then one counting sort of their rows by product — linear, no comparison,
   * and no per-row allocation beyond the two output arrays.
   */
  private order(n: number): { rows: Int32Array; runOf: Int32Array } {
    const runs = this.runStarts.length;
    const runEnd = (r: number) => (r + 1 < runs ? this.runStarts[r + 1]! : n);
    const byStore = Array.from({ length: runs }, (_, r) => r).sort((a, b) => this.runStores[a]! - this.runStores[b]! || a - b);
    let maxProduct = 0;
    for (let i = 0; i < n; i++) {
      const product = this.chunks[i >>> CHUNK_BITS]!.products[i & MASK]!;
      if (product > maxProduct) maxProduct = product;
    }
    const starts = new Int32Array(maxProduct + 2);
    for (let i = 0; i < n; i++) starts[this.chunks[i >>> CHUNK_BITS]!.products[i & MASK]! + 1]!++;
    for (let k = 1; k < starts.length; k++) starts[k]! += starts[k - 1]!;
    const rows = new Int32Array(n);
    const runOf = new Int32Array(n);
    for (const r of byStore) {
      for (let i = this.runStarts[r]!, end = runEnd(r); i < end; i++) {
        const at = starts[this.chunks[i >>> CHUNK_BITS]!.products[i & MASK]!]!++;
        rows[at] = i;
        runOf[at] = r;
      }
    }
    return { rows, runOf };
  }
}
