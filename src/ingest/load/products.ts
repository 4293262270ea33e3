import type { Database, Statement } from "bun:sqlite";
import type { PriceRecord } from "../records.ts";
import type { ProductIdentity } from "./barcode.ts";
import { detach } from "./detach.ts";

/** Fills `products.category` from a name and manufacturer (the keyword classifier). */
export type Classifier = (name: string, manufacturer: string | null) => string | null;

interface ProductEntry {
  id: number;
  name: string;
  manufacturer: string | null;
  country: string | null;
  unitQty: string | null;
  sizeAmount: number | null;
  sizeUnit: string | null;
  qtyInPackage: number | null;
  isWeighted: number;
  /** File time of the values, as text and as epoch ms. */
  updatedAt: string;
  updatedMs: number;
  /** Name or manufacturer changed since the row was written: classify again at flush. */
  reclassify?: boolean;
}

type CacheKey = number | string;
type JournalEntry = [key: CacheKey, previous: ProductEntry | undefined, previousPending: ProductEntry | undefined];

const DIGITS = /^\d{1,14}$/;

/**
 * The cache key of an identity: a number when the code is at most 14 digits (scope × 10¹⁴ +
 * code: hashing a number is much cheaper than hashing a fresh substring), else a string.
 */
function cacheKey(identity: ProductIdentity): CacheKey {
  return identity.scope < 90_000 && DIGITS.test(identity.key) ? identity.scope * 1e14 + Number(identity.key) : `${identity.scope}:${identity.key}`;
}

const PRODUCT_FIELDS = "id, name, manufacturer, manufacture_country, unit_qty, size_amount, size_unit, qty_in_package, is_weighted, updated_at";

function entryFromRow(row: unknown[]): ProductEntry {
  const updatedAt = row[9] as string;
  return {
    id: row[0] as number,
    name: row[1] as string,
    manufacturer: row[2] as string | null,
    country: row[3] as string | null,
    unitQty: row[4] as string | null,
    sizeAmount: row[5] as number | null,
    sizeUnit: row[6] as string | null,
    qtyInPackage: row[7] as number | null,
    isWeighted: row[8] as number,
    updatedAt,
    updatedMs: Date.parse(updatedAt),
  };
}

/** A record's display name: the published name, else its description, else the code. */
function nameOf(item: PriceRecord): string {
  return item.name?.trim() || item.description?.trim() || item.itemCode;
}

/**
 * The products of one import run, cached in memory. New products are inserted at once (their
 * ids are needed); changes to a known product's name, manufacturer or size are kept in memory,
 * newest file wins, and written once by `flush()` at the end of the run — the same GTIN is
 * published by many chains under slightly different names, so writing every change would
 * rewrite the row once per store file. Missing values (null) never erase known ones.
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

  private lookup(identity: ProductIdentity, key: CacheKey): ProductEntry | undefined {
    let entry = this.entries.get(key);
    if (entry) return entry;
    const row = this.select.values(identity.scope, identity.key)[0];
    if (!row) return undefined;
    entry = entryFromRow(row);
    this.entries.set(typeof key === "string" ? detach(key) : key, entry);
    return entry;
  }

  private put(key: CacheKey, entry: ProductEntry, previous: ProductEntry | undefined): void {
    const stored = typeof key === "string" && !previous ? detach(key) : key;
    this.journal.push([stored, previous, this.pending.get(entry.id)]);
    this.entries.set(stored, entry);
  }

  /** The id of a known product, or null (promotion items never create products). */
  find(identity: ProductIdentity): number | null {
    return this.lookup(identity, cacheKey(identity))?.id ?? null;
  }

  /**
   * The product id for a price record, inserting the product when new and merging its
   * descriptive fields when the file is at least as new as the values held.
   * @example cache.upsert({ scope: 0, key: "7290000066318" }, record, "2026-11-22T05:00:00+02:00", Date.parse(...)) // → 17
   */
  upsert(identity: ProductIdentity, item: PriceRecord, time: string, timeMs: number): number {
    const key = cacheKey(identity);
    const entry = this.lookup(identity, key);
    const name = nameOf(item);
    if (!entry) {
      const fresh: ProductEntry = {
        id: 0,
        name: detach(name),
        manufacturer: detach(item.manufacturer),
        country: detach(item.manufactureCountry),
        unitQty: detach(item.unitQty),
        sizeAmount: item.sizeAmount,
        sizeUnit: detach(item.sizeUnit),
        qtyInPackage: item.qtyInPackage,
        isWeighted: item.isWeighted ? 1 : 0,
        updatedAt: time,
        updatedMs: timeMs,
      };
      const category = this.classify ? this.classify(name, item.manufacturer) : null;
      const result = this.insert.run(
        identity.scope, item.itemCode.trim(), identity.key, name, fresh.manufacturer, fresh.country, fresh.unitQty,
        fresh.sizeAmount, fresh.sizeUnit, fresh.qtyInPackage, fresh.isWeighted, category, time,
      );
      fresh.id = Number(result.lastInsertRowid);
      this.inserted++;
      this.put(key, fresh, undefined);
      return fresh.id;
    }
    if (timeMs < entry.updatedMs) return entry.id;
    const manufacturer = item.manufacturer ?? entry.manufacturer;
    const country = item.manufactureCountry ?? entry.country;
    const unitQty = item.unitQty ?? entry.unitQty;
    const sizeAmount = item.sizeAmount ?? entry.sizeAmount;
    const sizeUnit = item.sizeUnit ?? entry.sizeUnit;
    const qtyInPackage = item.qtyInPackage ?? entry.qtyInPackage;
    const isWeighted = item.isWeighted ? 1 : 0;
    if (
      name === entry.name && manufacturer === entry.manufacturer && country === entry.country && unitQty === entry.unitQty &&
      sizeAmount === entry.sizeAmount && sizeUnit === entry.sizeUnit && qtyInPackage === entry.qtyInPackage && isWeighted === entry.isWeighted
    ) {
      return entry.id;
    }
    const next: ProductEntry = {
      id: entry.id,
      name: name === entry.name ? entry.name : detach(name),
      manufacturer: manufacturer === entry.manufacturer ? entry.manufacturer : detach(manufacturer),
      country: country === entry.country ? entry.country : detach(country),
      unitQty: unitQty === entry.unitQty ? entry.unitQty : detach(unitQty),
      sizeAmount,
      sizeUnit: sizeUnit === entry.sizeUnit ? entry.sizeUnit : detach(sizeUnit),
      qtyInPackage,
      isWeighted,
      updatedAt: time,
      updatedMs: timeMs,
      reclassify: entry.reclassify === true || name !== entry.name || manufacturer !== entry.manufacturer,
    };
    this.put(key, next, entry);
    this.pending.set(next.id, next);
    return next.id;
  }

  /** Keeps the current file's cache changes. */
  commitFile(): void {
    this.journal = [];
  }

  /** Undoes the current file's cache changes (its rows were rolled back). */
  rollbackFile(): void {
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
