import type { Database, Statement } from "bun:sqlite";
import type { ProductCache } from "./products.ts";
import type { PriceRows } from "./price-rows.ts";
import { BatchInsert } from "./batch.ts";
import type { HistoryBuffer } from "./history.ts";
import { StoreRowsMemo, type StoreRows } from "./store-rows.ts";

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
  /** Rows repeating an item already listed in the same file (see byProduct for which counts). */
  duplicates: number;
  /** Of those, the items listed with different prices. */
  conflicting: number;
}

/**
 * A set of product ids (the products whose current price changed this run): a bitmap plus the
 * list, so adding one is an array write rather than a hash-set insert.
 */
export class ProductIdSet implements Iterable<number> {
  private seen = new Uint8Array(1 << 16);
  private readonly ids: number[] = [];

  get size(): number {
    return this.ids.length;
  }

  add(id: number): void {
    if (id >= this.seen.length) {
      const bigger = new Uint8Array(Math.max(id + 1, this.seen.length * 2));
      bigger.set(this.seen);
      this.seen = bigger;
    }
    if (this.seen[id]) return;
    this.seen[id] = 1;
    this.ids.push(id);
  }

  has(id: number): boolean {
    return id < this.seen.length && this.seen[id] === 1;
  }

  [Symbol.iterator](): Iterator<number> {
    return this.ids[Symbol.iterator]();
  }
}

/** Prepared statements of the price loader, one set per connection and run. */
export class PriceStatements {
  /** A store's rows as three JSON arrays in product order (one result row, no object per price). */
  readonly storeRows: Statement;
  readonly oneRow: Statement;
  /** New rows, written in batches (flushed at the end of each file). */
  readonly insert: BatchInsert;
  /** Rows whose price changed: price, updated_at and allow_discount, written in batches like `insert`. */
  readonly changes: BatchInsert;
  readonly setAllow: Statement;
  readonly remove: Statement;
  /** Products whose current price changed in some store this run (for chain_products). */
  readonly touched = new ProductIdSet();
  /**
   * Generic products (scope -1): their store rows are derived from their members' at the end of
   * a run (generic-products.ts), never published, so a complete PriceFull does not remove them.
   */
  readonly generic: Set<number>;
  /** Stores whose current rows this run knows whole (their next file reads no table row). */
  readonly known = new StoreRowsMemo();

  constructor(db: Database) {
    this.storeRows = db.prepare(
      `SELECT json_group_array(product_id) AS ids, json_group_array(price) AS prices, json_group_array(allow_discount) AS allows
         FROM (SELECT product_id, price, allow_discount FROM price_current WHERE store_id = ? ORDER BY product_id)`,
    );
    this.oneRow = db.prepare("SELECT price, allow_discount FROM price_current WHERE store_id = ? AND product_id = ?");
    this.insert = new BatchInsert(db, "INSERT INTO price_current (store_id, product_id, price, updated_at, allow_discount) VALUES", 5);
    // Every row of a batch exists (read just before): the conflict branch is the update.
    this.changes = new BatchInsert(
      db,
      "INSERT INTO price_current (store_id, product_id, price, updated_at, allow_discount) VALUES",
      5,
      "ON CONFLICT (store_id, product_id) DO UPDATE SET price = excluded.price, updated_at = excluded.updated_at, allow_discount = excluded.allow_discount",
    );
    this.setAllow = db.prepare("UPDATE price_current SET allow_discount = ? WHERE store_id = ? AND product_id = ?");
    this.remove = db.prepare("DELETE FROM price_current WHERE store_id = ? AND product_id = ?");
    this.generic = new Set((db.query("SELECT id FROM products WHERE scope_chain_id = -1").values() as [number][]).map((r) => r[0]));
  }
}


// Below this many items a delta file looks its rows up one by one instead of reading the store.
const POINT_LOOKUP_LIMIT = 200;
/** Product ids below this are ordered by radix passes over their 32 bits. */
const ID_SPAN = 2 ** 32;
/** Bits of a product id ordered per radix pass (2,048 counters; ids below 2²² take two passes). */
const DIGIT_BITS = 11;
const DIGIT_MASK = (1 << DIGIT_BITS) - 1;

/** Epoch ms of a row's PriceUpdateDate, -Infinity when it has none. */
function rowTime(rows: PriceRows, i: number): number {
  const at = rows.updatedAt(i);
  return at === null ? -Infinity : Date.parse(at);
}

/**
 * Row indexes ordered by product id, rows of one product in file order: a least-significant-digit
 * radix sort (stable, linear; a native sort of (id, row) keys cost several times more per file);
 * null when an id is not an integer below ID_SPAN (the caller sorts with a comparator).
 * @example radixOrder(new Float64Array([7, 3, 7, 1]), 4) // Int32Array [3, 1, 0, 2]
 */
export function radixOrder(productOf: Float64Array, n: number): Int32Array | null {
  let max = 0;
  for (let i = 0; i < n; i++) {
    const id = productOf[i]!;
    if (!(id >= 0 && id < ID_SPAN && id === Math.floor(id))) return null;
    if (id > max) max = id;
  }
  let order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  let spare = new Int32Array(n);
  const counts = new Int32Array(DIGIT_MASK + 2);
  for (let shift = 0; shift === 0 || (shift < 32 && max >>> shift !== 0); shift += DIGIT_BITS) {
    counts.fill(0);
    for (let k = 0; k < n; k++) counts[((productOf[order[k]!]! >>> shift) & DIGIT_MASK) + 1]!++;
    for (let d = 1; d < counts.length; d++) counts[d]! += counts[d - 1]!;
    for (let k = 0; k < n; k++) {
      const i = order[k]!;
      spare[counts[(productOf[i]! >>> shift) & DIGIT_MASK]!++] = i;
    }
    [order, spare] = [spare, order];
  }
  return order;
}

/**
 * The file's rows ordered by product id, one per product: product ids in `ids`, their row
 * indexes in `at`. An item listed twice counts once — the row with the newest PriceUpdateDate,
 * and at equal (or missing) times the last one listed; `conflicting` counts the items listed with
 * different prices. The same rule holds for the price, its history row and the product's
 * description, whatever thread parsed the file.
 */
function byProduct(
  productOf: Float64Array,
  n: number,
  rows: PriceRows,
): { ids: Float64Array; at: Int32Array; count: number; conflicting: number; notLast: number[] } {
  const order = radixOrder(productOf, n) ?? Int32Array.from(Array.from({ length: n }, (_, i) => i).sort((a, b) => productOf[a]! - productOf[b]! || a - b));
  const ids = new Float64Array(n);
  const at = new Int32Array(n);
  let count = 0;
  let conflicting = 0;
  const notLast: number[] = [];
  for (let k = 0; k < n; k++) {
    const i = order[k]!;
    const id = productOf[i]!;
    if (k + 1 < n && productOf[order[k + 1]!] === id) continue;
    let chosen = i;
    if (k > 0 && productOf[order[k - 1]!] === id) {
      // A repeated item (rare): rows k0..k in file order; the newest update wins, ties the last.
      let k0 = k;
      while (k0 > 0 && productOf[order[k0 - 1]!] === id) k0--;
      let best = rowTime(rows, chosen);
      let differs = false;
      for (let j = k - 1; j >= k0; j--) {
        const r = order[j]!;
        if (rows.price(r) !== rows.price(i)) differs = true;
        const t = rowTime(rows, r);
        if (t > best) {
          best = t;
          chosen = r;
        }
      }
      if (differs) conflicting++;
      if (chosen !== i) notLast.push(chosen);
    }
    ids[count] = id;
    at[count++] = chosen;
  }
  return { ids, at, count, conflicting, notLast };
}

function keepRow(rows: StoreRows, id: number, price: number, allow: number): void {
  rows.ids.push(id);
  rows.prices.push(price);
  rows.allows.push(allow);
}

/** `rows` with new items (id, price, allow triples, ascending by id, none already in `rows`) merged in. */
function mergeAdded(rows: StoreRows, added: number[]): StoreRows {
  const m = added.length / 3;
  if (m <= 32) {
    // A delta's few new items: each put in its place (a native move of the rows after it).
    let from = 0;
    for (let a = 0; a < m; a++) {
      const id = added[a * 3]!;
      let lo = from;
      let hi = rows.ids.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (rows.ids[mid]! < id) lo = mid + 1;
        else hi = mid;
      }
      rows.ids.splice(lo, 0, id);
      rows.prices.splice(lo, 0, added[a * 3 + 1]!);
      rows.allows.splice(lo, 0, added[a * 3 + 2]!);
      from = lo + 1;
    }
    return rows;
  }
  const out: StoreRows = { ids: [], prices: [], allows: [] };
  let a = 0;
  for (let r = 0; r < rows.ids.length; r++) {
    for (; a < m && added[a * 3]! < rows.ids[r]!; a++) keepRow(out, added[a * 3]!, added[a * 3 + 1]!, added[a * 3 + 2]!);
    keepRow(out, rows.ids[r]!, rows.prices[r]!, rows.allows[r]!);
  }
  for (; a < m; a++) keepRow(out, added[a * 3]!, added[a * 3 + 1]!, added[a * 3 + 2]!);
  return out;
}

/** The store's current rows: all of them, or those of the file's `ids` one by one. */
function readExisting(st: PriceStatements, storeId: number, ids: Float64Array, count: number, wholeStore: boolean): StoreRows {
  if (wholeStore) {
    const row = st.storeRows.get(storeId) as { ids: string; prices: string; allows: string };
    const existing: StoreRows = { ids: JSON.parse(row.ids), prices: JSON.parse(row.prices), allows: JSON.parse(row.allows) };
    for (let e = 1; e < existing.ids.length; e++) {
      if (existing.ids[e]! <= existing.ids[e - 1]!) throw new Error("price_current rows of a store not in product order");
    }
    return existing;
  }
  const existing: StoreRows = { ids: [], prices: [], allows: [] };
  for (let k = 0; k < count; k++) {
    const row = st.oneRow.values(storeId, ids[k]!)[0] as [number, number] | undefined;
    if (!row) continue;
    existing.ids.push(ids[k]!);
    existing.prices.push(row[0]);
    existing.allows.push(row[1]);
  }
  return existing;
}

/**
 * Loads one store's price file. A change of price (or a new item) writes `price_current` and a
 * `price_history` row at the file's time; an unchanged price writes nothing (only an AllowDiscount
 * change is written; `updated_at` stays the time the price took effect). With `replace` (a complete
 * PriceFull), items the store no longer lists are deleted and get a history row with price
 * NULL. Rows are written in primary-key order (product id), new and changed ones in multi-row batches;
 * history rows go to the run's HistoryBuffer (written sorted at the end of the run). The file's
 * rows and the store's current rows are matched by one ordered walk over both.
 *
 * @example loadPrices(statements, products, history, storeId, chainId, recordRows(items), { replace: true, time, timeMs })
 * // → { rows: 3500, inserted: 12, changed: 104, unchanged: 3384, removed: 7, duplicates: 0, conflicting: 0 }
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
  const n = rows.count;
  const productOf = new Float64Array(n);
  for (let i = 0; i < n; i++) productOf[i] = products.upsert(rows, i, chainId, time, timeMs);
  const { ids, at, count, conflicting, notLast } = byProduct(productOf, n, rows);
  const duplicates = n - count;
  // The row that counts describes the product too (the cache took the last row's description).
  for (const i of notLast) products.upsert(rows, i, chainId, time, timeMs);

  const held = st.known.get(storeId);
  const whole = held !== undefined || options.replace || count > POINT_LOOKUP_LIMIT;
  const existing = held ?? readExisting(st, storeId, ids, count, whole);
  // With all of the store's rows at hand, its rows after this file are kept for its next file: a
  // complete PriceFull's are built as they are walked; other files change the rows in place, and
  // their new items are merged in at the end.
  const next: StoreRows | null = whole && options.replace ? { ids: [], prices: [], allows: [] } : null;
  const added: number[] | null = whole && !options.replace ? [] : null;
  const exIds = existing.ids;
  const exCount = exIds.length;
  const timeId = history.timeId(time);
  const gone: number[] = [];
  let inserted = 0;
  let changed = 0;
  let unchanged = 0;
  let e = 0;
  for (let k = 0; k < count; k++) {
    const id = ids[k]!;
    const i = at[k]!;
    if (options.replace) {
      for (; e < exCount && exIds[e]! < id; e++) {
        gone.push(exIds[e]!);
        // A complete PriceFull removes the rows it does not list, but not generic products'.
        if (next && st.generic.has(exIds[e]!)) keepRow(next, exIds[e]!, existing.prices[e]!, existing.allows[e]!);
      }
    } else {
      while (e < exCount && exIds[e]! < id) e++;
    }
    const price = rows.price(i);
    const allow = rows.allowDiscount(i) ? 1 : 0;
    if (next) keepRow(next, id, price, allow);
    if (e >= exCount || exIds[e] !== id) {
      st.insert.add(storeId, id, price, rows.updatedAt(i) ?? time, allow);
      history.addAt(id, storeId, timeId, price);
      st.touched.add(id);
      added?.push(id, price, allow);
      inserted++;
      continue;
    }
    const oldPrice = existing.prices[e]!;
    const oldAllow = existing.allows[e]!;
    if (added) {
      existing.prices[e] = price;
      existing.allows[e] = allow;
    }
    e++;
    if (oldPrice !== price) {
      st.changes.add(storeId, id, price, rows.updatedAt(i) ?? time, allow);
      history.addAt(id, storeId, timeId, price);
      st.touched.add(id);
      changed++;
    } else {
      // Same price: updated_at stays the time this price took effect (some chains restamp
      // PriceUpdateDate on every file; rewriting every row daily would cost more than the load).
      if (oldAllow !== allow) st.setAllow.run(allow, storeId, id);
      unchanged++;
    }
  }
  if (options.replace) {
    for (; e < exCount; e++) {
      gone.push(exIds[e]!);
      if (next && st.generic.has(exIds[e]!)) keepRow(next, exIds[e]!, existing.prices[e]!, existing.allows[e]!);
    }
  }
  st.insert.flush();
  st.changes.flush();

  let removed = 0;
  if (options.replace) {
    for (const id of gone) {
      if (st.generic.size > 0 && st.generic.has(id)) continue;
      st.remove.run(storeId, id);
      history.addAt(id, storeId, timeId, null);
      st.touched.add(id);
    }
    removed = st.generic.size > 0 ? gone.filter((id) => !st.generic.has(id)).length : gone.length;
  }
  if (next) st.known.keep(storeId, next);
  else if (added) st.known.keep(storeId, added.length === 0 ? existing : mergeAdded(existing, added));
  else st.known.forget(storeId);
  return { rows: n, inserted, changed, unchanged, removed, duplicates, conflicting };
}
