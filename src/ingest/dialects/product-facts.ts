import { detach } from "../load/detach.ts";
import type { PriceRecord } from "../records.ts";

/** The fields of a price record that describe its product (everything but price, discount flag, status and time). */
export type ProductFacts = Pick<
  PriceRecord,
  | "itemCode"
  | "itemType"
  | "name"
  | "manufacturer"
  | "manufactureCountry"
  | "description"
  | "unitQty"
  | "quantity"
  | "unitOfMeasure"
  | "sizeAmount"
  | "sizeUnit"
  | "isWeighted"
  | "qtyInPackage"
>;

/** What packing adds to a product's facts (src/ingest/parse/packed.ts), worked out once per remembered product. */
export interface PackedFacts {
  /** productName: name, else description, else code. */
  name: string;
  keyNumber: number;
  shared: boolean;
  hash: number;
  /** Code, name, manufacturer, country, unit quantity and size unit, each followed by U+0000 (U+0001 for null), as packed rows carry them. */
  strings: string;
  /** Where each of the six starts in `strings`. */
  starts: readonly number[];
}

/** A remembered product: its facts, and their packed form once a packer asked. */
export interface KnownProduct {
  facts: ProductFacts;
  packed: PackedFacts | null;
}

/**
 * The raw product fields a remembered product is confirmed against: either each field's raw text
 * (`raws`, null: absent), or — for a row read on a document's bytes whose product fields are
 * consecutive leaves — one copy of the bytes from the first field's value to the last's (`span`)
 * with each field's start and end in it (`layout`, -1 for an absent field): equal layouts and
 * equal spans mean equal fields, confirmed by one native compare instead of field by field.
 */
export interface RawProduct {
  raws: readonly (string | null)[] | null;
  span: Uint8Array | null;
  layout: Int32Array | null;
}

interface Remembered extends KnownProduct {
  raw: RawProduct;
}

/**
 * The products a parse thread has already worked out during one import run, by the raw text of
 * their fields. The same product appears in the price file of every store of a chain with the
 * same bytes; only the price, its time and status change. Reading its name, unit words and
 * size (cleaning, unit and size rules, identity and description hash) is the costly part of a
 * row, so it is done once per distinct raw product and reused. Exact: found by a hash of the
 * raw fields, then confirmed against their remembered text (field by field, or as one span of
 * bytes, see {@link RawProduct}; the facts are a pure function of it). Bounded: forgets everything past `limit` entries. Owned by one run's parse
 * thread (a worker, or the importing thread's prefetcher).
 *
 * @example
 * const memo = new ProductMemo();
 * readPriceFilePacked(bytes, name, memo); // the next store's file reuses this one's products
 */
export class ProductMemo {
  private readonly known = new Map<number, Remembered>();
  private readonly times = new Map<string, string | null>();

  constructor(private readonly limit = 100_000) {}

  /** The product remembered under `hash` whose raw fields `same` confirms. */
  find(hash: number, same: (raw: RawProduct) => boolean): KnownProduct | undefined {
    const entry = this.known.get(hash);
    return entry !== undefined && same(entry.raw) ? entry : undefined;
  }

  /** Remembers a product; its strings must not be substrings of a file's text (they would keep it alive). */
  add(hash: number, raw: RawProduct, facts: ProductFacts): KnownProduct {
    if (this.known.size >= this.limit) this.known.clear();
    const entry: Remembered = { facts, packed: null, raw };
    this.known.set(hash, entry);
    return entry;
  }

  /**
   * The ISO time of a row's PriceUpdateDate text, worked out once per run: files repeat a
   * chain's few hundred distinct times row after row and store after store. `read` is a pure
   * function of `value`.
   */
  time(value: string, read: (value: string) => string | null): string | null {
    let iso = this.times.get(value);
    if (iso === undefined) {
      iso = read(value);
      if (this.times.size >= this.limit) this.times.clear();
      // A copy: a substring would keep its file's text alive.
      this.times.set(detach(value), iso);
    }
    return iso;
  }

  get size(): number {
    return this.known.size;
  }
}
