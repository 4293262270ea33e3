import type { ParsedFile } from "./records.ts";
import { barcodeKey } from "./load/barcode.ts";
import { isShared, keyNumber, productHash, productName, type PriceList, type PriceRows, type ProductSource } from "./load/price-rows.ts";

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

/**
 * Packs a parsed file when it is a price list; other kinds pass through unchanged.
 * @example const packed = packParsed(parsed); postMessage(packed, transferablesOf(packed))
 */
export function packParsed(parsed: ParsedFile): ParsedFile | PackedPrices {
  if (parsed.kind !== "prices") return parsed;
  const count = parsed.items.length;
  const parts: string[] = new Array(count * STRINGS);
  const offsets = new Int32Array(count * STRINGS + 1);
  const numbers = new Float64Array(count * NUMBERS);
  const updates: (string | null)[] = [];
  const updateIndex = new Map<string | null, number>();
  let at = 0;
  const put = (k: number, value: string | null) => {
    const text = value ?? NULL;
    parts[k] = text;
    offsets[k] = at;
    at += text.length + 1;
  };
  for (let i = 0; i < count; i++) {
    const it = parsed.items[i]!;
    const s = i * STRINGS;
    put(s + S_CODE, it.itemCode);
    const name = productName(it);
    put(s + S_NAME, name);
    put(s + S_MAKER, it.manufacturer);
    put(s + S_COUNTRY, it.manufactureCountry);
    put(s + S_UNIT_QTY, it.unitQty);
    put(s + S_SIZE_UNIT, it.sizeUnit);
    const key = barcodeKey(it.itemCode);
    const n = i * NUMBERS;
    numbers[n + N_KEY] = keyNumber(key);
    numbers[n + N_SHARED] = isShared(key, it.itemType) ? 1 : 0;
    numbers[n + N_PRICE] = it.price;
    numbers[n + N_ALLOW] = it.allowDiscount ? 1 : 0;
    numbers[n + N_HASH] = productHash({
      name,
      manufacturer: it.manufacturer,
      country: it.manufactureCountry,
      unitQty: it.unitQty,
      sizeAmount: it.sizeAmount,
      sizeUnit: it.sizeUnit,
      qtyInPackage: it.qtyInPackage,
      isWeighted: it.isWeighted ? 1 : 0,
    });
    numbers[n + N_SIZE] = num(it.sizeAmount);
    numbers[n + N_WEIGHTED] = it.isWeighted ? 1 : 0;
    numbers[n + N_QTY_IN_PACKAGE] = num(it.qtyInPackage);
    let u = updateIndex.get(it.updatedAt);
    if (u === undefined) {
      u = updates.push(it.updatedAt) - 1;
      updateIndex.set(it.updatedAt, u);
    }
    numbers[n + N_UPDATED] = u;
  }
  offsets[count * STRINGS] = at;
  return {
    kind: "prices-packed",
    chainCode: parsed.chainCode,
    subChainCode: parsed.subChainCode,
    storeCode: parsed.storeCode,
    count,
    text: count ? parts.join(SEP) + SEP : "",
    offsets,
    numbers,
    updates,
  };
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
