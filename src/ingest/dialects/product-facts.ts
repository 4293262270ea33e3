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

/** What packing adds to a product's facts (src/ingest/packed.ts), worked out once per remembered product. */
export interface PackedFacts {
  /** productName: name, else description, else code. */
  name: string;
  keyNumber: number;
  shared: boolean;
  hash: number;
}

/** A remembered product: its facts, and their packed form once a packer asked. */
export interface KnownProduct {
  facts: ProductFacts;
  packed: PackedFacts | null;
}

interface Remembered extends KnownProduct {
  /** The raw text of its product fields (null: absent), to confirm a hash match. */
  raws: readonly (string | null)[];
}

/**
 * The products a parse thread has already worked out during one import run, by the raw text of
 * their fields. The same product appears in the price file of every store of a chain with the
 * same bytes; only the price, its time and status change. Reading its name, unit words and
 * size (cleaning, unit and size rules, identity and description hash) is the costly part of a
 * row, so it is done once per distinct raw product and reused. Exact: found by a hash of the
 * raw fields, then confirmed field by field against their remembered text (the facts are a pure
 * function of it). Bounded: forgets everything past `limit` entries. Owned by one run's parse
 * thread (a worker, or the importing thread's prefetcher).
 *
 * @example
 * const memo = new ProductMemo();
 * readPriceFilePacked(bytes, name, memo); // the next store's file reuses this one's products
 */
export class ProductMemo {
  private readonly known = new Map<number, Remembered>();

  constructor(private readonly limit = 100_000) {}

  /** The product remembered under `hash` whose raw fields `same` confirms. */
  find(hash: number, same: (raws: readonly (string | null)[]) => boolean): KnownProduct | undefined {
    const entry = this.known.get(hash);
    return entry !== undefined && same(entry.raws) ? entry : undefined;
  }

  /** Remembers a product; its strings must not be substrings of a file's text (they would keep it alive). */
  add(hash: number, raws: readonly (string | null)[], facts: ProductFacts): KnownProduct {
    if (this.known.size >= this.limit) this.known.clear();
    const entry: Remembered = { facts, packed: null, raws };
    this.known.set(hash, entry);
    return entry;
  }

  get size(): number {
    return this.known.size;
  }
}
