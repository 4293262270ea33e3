/** A store's current rows (price_current), ascending by product id. */
export interface StoreRows {
  ids: number[];
  prices: number[];
  allows: number[];
}

/** Rows held at most, over all stores (≈ 40 bytes a row: a national import's first ~2 M rows). */
const DEFAULT_LIMIT = 2_000_000;

/**
 * What the run has written to `price_current`, per store: a store whose rows are all known (read
 * whole, or loaded from empty) keeps them after each of its files, so its next file — a delta an
 * hour or a month later — is matched against them without reading the table (the demo's first
 * start loads 2,400 such files). Bounded in rows; a store past the bound is read as before.
 * Anything else that writes a store's rows (closing it, a rolled-back file) must forget it.
 *
 * @example
 * const memo = new StoreRowsMemo();
 * memo.keep(3, { ids: [7, 9], prices: [1290, 590], allows: [1, 1] });
 * memo.get(3)?.ids // [7, 9]
 */
export class StoreRowsMemo implements Iterable<[storeId: number, rows: StoreRows]> {
  private readonly stores = new Map<number, StoreRows>();
  private rows = 0;

  constructor(private readonly limit = DEFAULT_LIMIT) {}

  get(storeId: number): StoreRows | undefined {
    return this.stores.get(storeId);
  }

  /** Rows held, over all stores. */
  get size(): number {
    return this.rows;
  }

  /** The stores held and their rows (afresh at each loop). */
  [Symbol.iterator](): IterableIterator<[storeId: number, rows: StoreRows]> {
    return this.stores.entries();
  }

  /** The store's complete current rows (replacing any held); left out past the bound. */
  keep(storeId: number, rows: StoreRows): void {
    this.forget(storeId);
    if (this.rows + rows.ids.length > this.limit) return;
    this.stores.set(storeId, rows);
    this.rows += rows.ids.length;
  }

  /**
   * Whether the rows held are all of a table's: `total` rows, `storesWithRows` the stores that have
   * any. Held rows are exact copies of their stores' rows, so a store with rows not held, or counts
   * that differ, means some rows are not here.
   */
  holdsAll(total: number, storesWithRows: Iterable<number>): boolean {
    if (total !== this.rows) return false;
    for (const storeId of storesWithRows) if (!this.stores.has(storeId)) return false;
    return true;
  }

  forget(storeId: number): void {
    const held = this.stores.get(storeId);
    if (!held) return;
    this.rows -= held.ids.length;
    this.stores.delete(storeId);
  }

  clear(): void {
    this.stores.clear();
    this.rows = 0;
  }
}
