import type { Database, Statement } from "bun:sqlite";
import type { ProductIdentity } from "./barcode.ts";
import { detach } from "./detach.ts";
import { keyNumber, productHash, type PriceRows } from "./price-rows.ts";
import { ChainNames } from "./chain-names.ts";

import type { Classifier } from "./classifier.ts";

export type { Classifier } from "./classifier.ts";

interface ProductFields {
  name: string;
  manufacturer: string | null;
  country: string | null;
  unitQty: string | null;
  sizeAmount: number | null;
  sizeUnit: string | null;
  qtyInPackage: number | null;
  isWeighted: number;
}

interface ProductEntry extends ProductFields {
  id: number;
  /** File time of the values, as text and as epoch ms. */
  updatedAt: string;
  updatedMs: number;
  /** productHash of the fields above. */
  hash: number;
  /** The hash of a published description found to change nothing (missing values keep known ones). */
  sameHash?: number;
  /** Name or manufacturer changed since the row was written: classify again at flush. */
  reclassify?: boolean;
}

type CacheKey = number | string;
type JournalEntry = [key: CacheKey, previous: ProductEntry | undefined, previousPending: ProductEntry | undefined];

/** Largest scope whose numeric keys stay exact: (89 + 1) × 10¹⁴ − 1 < 2⁵³ ≈ 9.007 × 10¹⁵. */
const MAX_NUMERIC_SCOPE = 89;

/**
 * The cache key of a product: a number when its code is at most 14 digits (scope × 10¹⁴ + code:
 * hashing a number is much cheaper than hashing a fresh substring), else a string. Past
 * MAX_NUMERIC_SCOPE the sum would lose its last digits and merge neighbouring codes.
 */
export function cacheKey(scope: number, number: number, key: () => string): CacheKey {
  return scope <= MAX_NUMERIC_SCOPE && !Number.isNaN(number) ? scope * 1e14 + number : `${scope}:${key()}`;
}

const PRODUCT_FIELDS = "id, name, manufacturer, manufacture_country, unit_qty, size_amount, size_unit, qty_in_package, is_weighted, updated_at";

function entryFromRow(row: unknown[]): ProductEntry {
  const updatedAt = row[9] as string;
  const fields: ProductFields = {
    name: row[1] as string,
    manufacturer: row[2] as string | null,
    country: row[3] as string | null,
    unitQty: row[4] as string | null,
    sizeAmount: row[5] as number | null,
    sizeUnit: row[6] as string | null,
    qtyInPackage: row[7] as number | null,
    isWeighted: row[8] as number,
  };
  return { id: row[0] as number, ...fields, updatedAt, updatedMs: Date.parse(updatedAt), hash: productHash(fields) };
}

const sameFields = (a: ProductFields, b: ProductFields) =>
  a.name === b.name && a.manufacturer === b.manufacturer && a.country === b.country && a.unitQty === b.unitQty &&
  a.sizeAmount === b.sizeAmount && a.sizeUnit === b.sizeUnit && a.qtyInPackage === b.qtyInPackage && a.isWeighted === b.isWeighted;

/** Copies of the fields' strings (see detach), reusing the known ones where equal. */
function kept(fields: ProductFields, known?: ProductFields): ProductFields {
  const keep = <K extends "name" | "manufacturer" | "country" | "unitQty" | "sizeUnit">(k: K) =>
    known && fields[k] === known[k] ? known[k] : detach(fields[k]);
  return { ...fields, name: keep("name"), manufacturer: keep("manufacturer"), country: keep("country"), unitQty: keep("unitQty"), sizeUnit: keep("sizeUnit") };
}

/**
 * The products of one import run, cached in memory. New products are inserted at once (their
 * ids are needed); changes to a known product's name, manufacturer or size are kept in memory,
 * newest file wins, and written once by `flush()` at the end of the run — the same GTIN is
 * published by many chains under slightly different names, so writing every change would
 * rewrite the row once per store file. Missing values (null) never erase known ones. A hash of
 * the published description (computed on the parse thread) skips unchanged products without
 * touching their strings.
 *
 * Per-file journal: `rollbackFile()` undoes the cache changes of a file whose savepoint was
 * rolled back, `commitFile()` keeps them.
 */
export class ProductCache {
  private readonly entries = new Map<CacheKey, ProductEntry>();
  private readonly pending = new Map<number, ProductEntry>();
  private journal: JournalEntry[] = [];
  private readonly select: Statement;
  private readonly insert: Statement;
  private readonly update: Statement;
  /** Products inserted during the run (kept after commitFile). */
  inserted = 0;
  /** Each chain's published names, from which the served name is chosen at the end of the run. */
  readonly names = new ChainNames();

  constructor(
    private readonly db: Database,
    private readonly classify: Classifier | null,
  ) {
    this.select = db.prepare(`SELECT ${PRODUCT_FIELDS} FROM products WHERE scope_chain_id = ? AND barcode_key = ?`);
    this.insert = db.prepare(
      `INSERT INTO products (scope_chain_id, barcode, barcode_key, name, manufacturer, manufacture_country, unit_qty,
                             size_amount, size_unit, qty_in_package, is_weighted, category, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.update = db.prepare(
      `UPDATE products SET name = ?, manufacturer = ?, manufacture_country = ?, unit_qty = ?, size_amount = ?, size_unit = ?,
                           qty_in_package = ?, is_weighted = ?, category = coalesce(?, category), updated_at = ?
        WHERE id = ?`,
    );
  }

  private lookup(scope: number, key: string, cacheKey: CacheKey): ProductEntry | undefined {
    let entry = this.entries.get(cacheKey);
    if (entry) return entry;
    const row = this.select.values(scope, key)[0];
    if (!row) return undefined;
    entry = entryFromRow(row);
    this.entries.set(typeof cacheKey === "string" ? detach(cacheKey) : cacheKey, entry);
    return entry;
  }

  private put(key: CacheKey, entry: ProductEntry, previous: ProductEntry | undefined): void {
    const stored = typeof key === "string" && !previous ? detach(key) : key;
    this.journal.push([stored, previous, this.pending.get(entry.id)]);
    this.entries.set(stored, entry);
  }

  /** The id of a known product, or null (promotion items never create products). */
  find(identity: ProductIdentity): number | null {
    return this.lookup(identity.scope, identity.key, cacheKey(identity.scope, keyNumber(identity.key), () => identity.key))?.id ?? null;
  }

  /**
   * The product id for row `i`, inserting the product when new and merging its descriptive
   * fields when the file is at least as new as the values held.
   * @example cache.upsert(rows, 0, chainId, "2026-11-22T05:00:00+02:00", Date.parse("2026-11-22T05:00:00+02:00")) // → 17
   */
  upsert(rows: PriceRows, i: number, chainId: number, time: string, timeMs: number): number {
    const scope = rows.shared(i) ? 0 : chainId;
    const key = cacheKey(scope, rows.keyNumber(i), () => rows.key(i));
    let entry = this.entries.get(key);
    if (!entry) entry = this.lookup(scope, rows.key(i), key);
    const hash = rows.productHash(i);
    if (!entry) {
      const id = this.create(rows, i, scope, key, hash, time, timeMs);
      this.names.note(id, chainId, rows, i, timeMs, this.entries.get(key)!.name);
      return id;
    }
    this.names.note(entry.id, chainId, rows, i, timeMs, entry.name);
    if (timeMs < entry.updatedMs || hash === entry.hash || hash === entry.sameHash) return entry.id;

    const item = rows.product(i);
    // Name and manufacturer are chosen from every chain's at the end of the run (ChainNames);
    // here a missing manufacturer is only filled in.
    const merged: ProductFields = {
      name: entry.name,
      manufacturer: entry.manufacturer ?? item.manufacturer,
      country: item.country ?? entry.country,
      unitQty: item.unitQty ?? entry.unitQty,
      sizeAmount: item.sizeAmount ?? entry.sizeAmount,
      sizeUnit: item.sizeUnit ?? entry.sizeUnit,
      qtyInPackage: item.qtyInPackage ?? entry.qtyInPackage,
      isWeighted: item.isWeighted ? 1 : 0,
    };
    if (sameFields(merged, entry)) {
      // Safe to keep across a rollback: it only records that this description changes nothing.
      if (!Number.isNaN(hash)) entry.sameHash = hash;
      return entry.id;
    }
    const fields = kept(merged, entry);
    const next: ProductEntry = {
      id: entry.id,
      ...fields,
      updatedAt: time,
      updatedMs: timeMs,
      hash: productHash(fields),
      sameHash: Number.isNaN(hash) ? undefined : hash,
      reclassify: entry.reclassify === true || fields.name !== entry.name || fields.manufacturer !== entry.manufacturer,
    };
    this.put(key, next, entry);
    this.pending.set(next.id, next);
    return next.id;
  }

  private create(rows: PriceRows, i: number, scope: number, key: CacheKey, hash: number, time: string, timeMs: number): number {
    const item = rows.product(i);
    const fields = kept({
      name: item.name,
      manufacturer: item.manufacturer,
      country: item.country,
      unitQty: item.unitQty,
      sizeAmount: item.sizeAmount,
      sizeUnit: item.sizeUnit,
      qtyInPackage: item.qtyInPackage,
      isWeighted: item.isWeighted ? 1 : 0,
    });
    const category = this.classify ? this.classify(fields.name, fields.manufacturer) : null;
    const result = this.insert.run(
      scope, item.itemCode.trim(), rows.key(i), fields.name, fields.manufacturer, fields.country, fields.unitQty,
      fields.sizeAmount, fields.sizeUnit, fields.qtyInPackage, fields.isWeighted, category, time,
    );
    const own = Number.isNaN(hash) ? productHash(fields) : hash;
    const entry: ProductEntry = { id: Number(result.lastInsertRowid), ...fields, updatedAt: time, updatedMs: timeMs, hash: own, sameHash: own };
    this.inserted++;
    this.put(key, entry, undefined);
    return entry.id;
  }

  /** Keeps the current file's cache changes. */
  commitFile(): void {
    this.journal = [];
    this.names.commitFile();
  }

  /** Undoes the current file's cache changes (its rows were rolled back). */
  rollbackFile(): void {
    this.names.rollbackFile();
    for (let i = this.journal.length - 1; i >= 0; i--) {
      const [key, previous, previousPending] = this.journal[i]!;
      const current = this.entries.get(key);
      if (previous) this.entries.set(key, previous);
      else {
        this.entries.delete(key);
        this.inserted--;
      }
      if (current) {
        if (previousPending) this.pending.set(current.id, previousPending);
        else this.pending.delete(current.id);
      }
    }
    this.journal = [];
  }

  /** Writes the merged changes of known products; returns how many rows changed. */
  flush(): number {
    const ids = [...this.pending.keys()].sort((a, b) => a - b);
    for (const id of ids) {
      const e = this.pending.get(id)!;
      const category = this.classify && e.reclassify ? this.classify(e.name, e.manufacturer) : null;
      this.update.run(e.name, e.manufacturer, e.country, e.unitQty, e.sizeAmount, e.sizeUnit, e.qtyInPackage, e.isWeighted, category, e.updatedAt, e.id);
    }
    this.pending.clear();
    return ids.length;
  }
}
