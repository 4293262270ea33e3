import type { ParsedFile } from "../records.ts";
import { barcodeKey } from "../load/barcode.ts";
import { isShared, keyNumber, productHash, productName, type PriceList, type PriceRows, type ProductSource } from "../load/price-rows.ts";
import type { PackedFacts, ProductFacts, ProductMemo } from "../dialects/product-facts.ts";
import { PriceRowReader } from "../dialects/prices.ts";
import type { RowParser } from "../dialects/row-parser.ts";

/**
 * A price list packed on a parse worker for the importing thread. Structured clone of
 * thousands of small objects costs more than parsing them (≈ 5 µs per record measured), and
 * building them again costs the importing thread its time; so strings travel as one joined
 * string with offsets, numbers (with the product identity and description hash already
 * computed) as transferable typed arrays, and the importing thread reads rows in place
 * (PackedRows), slicing strings only for new or changed products. Only what the loader uses
 * travels (the product name already resolved; no description, unit of measure or status).
 */
export interface PackedPrices {
  kind: "prices-packed";
  chainCode: string | null;
  subChainCode: string | null;
  storeCode: string | null;
  count: number;
  /** STRINGS fields per row, each followed by SEP; NULL stands for null. Read by offsets, so a SEP inside a value is harmless. */
  text: string;
  /** Start of every string field in `text` (count × STRINGS + 1 entries). */
  offsets: Int32Array;
  /** NUMBERS fields per row; NaN stands for null. */
  numbers: Float64Array;
  /** The file's distinct PriceUpdateDate values (most files repeat a few): rows hold an index into it, so none is sliced per row. */
  updates: (string | null)[];
}

const SEP = "\u0000";
// Cannot occur in XML 1.0 text.
const NULL = "\u0001";

// String fields.
const S_CODE = 0, S_NAME = 1, S_MAKER = 2, S_COUNTRY = 3, S_UNIT_QTY = 4, S_SIZE_UNIT = 5;
const STRINGS = 6;
// Number fields.
const N_KEY = 0, N_SHARED = 1, N_PRICE = 2, N_ALLOW = 3, N_HASH = 4, N_SIZE = 5, N_WEIGHTED = 6, N_QTY_IN_PACKAGE = 7, N_UPDATED = 8;
const NUMBERS = 9;

const num = (value: number | null) => (value === null ? Number.NaN : value);

/** What packing derives from a product's facts: its name, identity, description hash and packed strings. */
export function packedFacts(f: ProductFacts): PackedFacts {
  const name = productName(f);
  const key = barcodeKey(f.itemCode);
  const fields = [f.itemCode, name, f.manufacturer, f.manufactureCountry, f.unitQty, f.sizeUnit];
  const starts: number[] = [];
  let at = 0;
  for (const value of fields) {
    starts.push(at);
    at += (value ?? NULL).length + 1;
  }
  return {
    name,
    keyNumber: keyNumber(key),
    shared: isShared(key, f.itemType),
    hash: productHash({
      name,
      manufacturer: f.manufacturer,
      country: f.manufactureCountry,
      unitQty: f.unitQty,
      sizeAmount: f.sizeAmount,
      sizeUnit: f.sizeUnit,
      qtyInPackage: f.qtyInPackage,
      isWeighted: f.isWeighted ? 1 : 0,
    }),
    strings: fields.map((value) => (value ?? NULL) + SEP).join(""),
    starts,
  };
}

/** Rows packed per file before the first growth when the caller gives no estimate. */
const DEFAULT_ROWS = 1024;

/**
 * Builds a {@link PackedPrices} row by row (rows read by a PriceRowReader, or records of a
 * parsed file): product strings (joined once per product, see packedFacts) and numbers from
 * the facts, price, discount flag and time per row. `expectedRows` sizes the arrays up front.
 * @example const packer = new PricePacker(); packer.add(facts, packedFacts(facts), 590, true, null); packer.finish(codes)
 */
export class PricePacker {
  private readonly parts: string[] = [];
  private offsets: Int32Array;
  private numbers: Float64Array;
  private readonly updates: (string | null)[] = [];
  private readonly updateIndex = new Map<string | null, number>();
  private at = 0;
  private count = 0;

  constructor(expectedRows = DEFAULT_ROWS) {
    const rows = Math.max(16, Math.ceil(expectedRows));
    this.offsets = new Int32Array(rows * STRINGS + 1);
    this.numbers = new Float64Array(rows * NUMBERS);
  }

  add(f: ProductFacts, p: PackedFacts, price: number, allowDiscount: boolean, updatedAt: string | null): void {
    const i = this.count++;
    if ((i + 1) * NUMBERS > this.numbers.length) this.grow();
    const s = i * STRINGS;
    // The product's six strings are one part (each followed by SEP): offsets are relative to it.
    const offsets = this.offsets;
    const starts = p.starts;
    const at = this.at;
    for (let k = 0; k < STRINGS; k++) offsets[s + k] = at + starts[k]!;
    this.parts.push(p.strings);
    this.at = at + p.strings.length;
    const numbers = this.numbers;
    const n = i * NUMBERS;
    numbers[n + N_KEY] = p.keyNumber;
    numbers[n + N_SHARED] = p.shared ? 1 : 0;
    numbers[n + N_PRICE] = price;
    numbers[n + N_ALLOW] = allowDiscount ? 1 : 0;
    numbers[n + N_HASH] = p.hash;
    numbers[n + N_SIZE] = num(f.sizeAmount);
    numbers[n + N_WEIGHTED] = f.isWeighted ? 1 : 0;
    numbers[n + N_QTY_IN_PACKAGE] = num(f.qtyInPackage);
    let u = this.updateIndex.get(updatedAt);
    if (u === undefined) {
      u = this.updates.push(updatedAt) - 1;
      this.updateIndex.set(updatedAt, u);
    }
    numbers[n + N_UPDATED] = u;
  }

  finish(codes: { chainCode: string | null; subChainCode: string | null; storeCode: string | null }): PackedPrices {
    const count = this.count;
    // Views, not copies: the buffers are transferred whole (their unused tail is small).
    const offsets = this.offsets.subarray(0, count * STRINGS + 1);
    offsets[count * STRINGS] = this.at;
    return {
      kind: "prices-packed",
      chainCode: codes.chainCode,
      subChainCode: codes.subChainCode,
      storeCode: codes.storeCode,
      count,
      text: this.parts.join(""),
      offsets,
      numbers: this.numbers.subarray(0, count * NUMBERS),
      updates: this.updates,
    };
  }

  private grow(): void {
    const offsets = new Int32Array(this.offsets.length * 2);
    offsets.set(this.offsets);
    this.offsets = offsets;
    const numbers = new Float64Array(this.numbers.length * 2);
    numbers.set(this.numbers);
    this.numbers = numbers;
  }
}

/**
 * Streams price rows straight into a {@link PackedPrices}, with no record object per row; with a
 * memo, a product seen in an earlier file of the run is not read again (see ProductMemo).
 * `expectedRows` sizes the packed arrays (an estimate; they grow past it).
 * @example readPriceFilePacked(bytes, name, memo) // uses this parser for price files
 */
export function packedPriceRowParser(memo: ProductMemo | null, expectedRows?: number): RowParser<PackedPrices> {
  const reader = new PriceRowReader(memo);
  const packer = new PricePacker(expectedRows);
  return {
    row(row) {
      const product = reader.read(row);
      if (!product) return;
      product.packed ??= packedFacts(product.facts);
      packer.add(product.facts, product.packed, reader.price, reader.allowDiscount, reader.updatedAt);
    },
    finish(root) {
      return { file: packer.finish(reader.codes(root)), warnings: reader.warnings() };
    },
  };
}

/**
 * Packs a parsed file when it is a price list; other kinds pass through unchanged.
 * @example const packed = packParsed(parsed); postMessage(packed, transferablesOf(packed))
 */
export function packParsed(parsed: ParsedFile | PackedPrices): ParsedFile | PackedPrices {
  if (parsed.kind !== "prices") return parsed;
  const packer = new PricePacker(parsed.items.length);
  for (const it of parsed.items) packer.add(it, packedFacts(it), it.price, it.allowDiscount, it.updatedAt);
  return packer.finish(parsed);
}

/** The buffers to transfer (not copy) with a packed file. */
export function transferablesOf(packed: { kind: string } | PackedPrices): ArrayBuffer[] {
  if (packed.kind !== "prices-packed") return [];
  const p = packed as PackedPrices;
  return [p.numbers.buffer as ArrayBuffer, p.offsets.buffer as ArrayBuffer];
}

const unnum = (value: number) => (Number.isNaN(value) ? null : value);

/** PriceRows read in place from a packed price list. */
class PackedRows implements PriceRows {
  readonly count: number;
  constructor(private readonly p: PackedPrices) {
    this.count = p.count;
  }
  private string(i: number, field: number): string | null {
    const k = i * STRINGS + field;
    const value = this.p.text.slice(this.p.offsets[k]!, this.p.offsets[k + 1]! - 1);
    return value === NULL ? null : value;
  }
  private number(i: number, field: number): number {
    return this.p.numbers[i * NUMBERS + field]!;
  }
  key(i: number): string {
    return barcodeKey(this.string(i, S_CODE)!);
  }
  keyNumber(i: number): number {
    return this.number(i, N_KEY);
  }
  shared(i: number): boolean {
    return this.number(i, N_SHARED) === 1;
  }
  price(i: number): number {
    return this.number(i, N_PRICE);
  }
  allowDiscount(i: number): boolean {
    return this.number(i, N_ALLOW) === 1;
  }
  updatedAt(i: number): string | null {
    return this.p.updates[this.number(i, N_UPDATED)]!;
  }
  productHash(i: number): number {
    return this.number(i, N_HASH);
  }
  product(i: number): ProductSource {
    return {
      itemCode: this.string(i, S_CODE)!,
      name: this.string(i, S_NAME)!,
      manufacturer: this.string(i, S_MAKER),
      country: this.string(i, S_COUNTRY),
      unitQty: this.string(i, S_UNIT_QTY),
      sizeAmount: unnum(this.number(i, N_SIZE)),
      sizeUnit: this.string(i, S_SIZE_UNIT),
      qtyInPackage: unnum(this.number(i, N_QTY_IN_PACKAGE)),
      isWeighted: this.number(i, N_WEIGHTED) === 1,
    };
  }
}

/**
 * Opens a packed price list as a PriceList (other kinds pass through).
 * @example (unpackParsed(packParsed(file)) as PriceList).rows.product(0) // the first item's product fields
 */
export function unpackParsed(packed: ParsedFile | PackedPrices): ParsedFile | PriceList {
  if (packed.kind !== "prices-packed") return packed;
  return { kind: "price-rows", chainCode: packed.chainCode, subChainCode: packed.subChainCode, storeCode: packed.storeCode, rows: new PackedRows(packed) };
}
