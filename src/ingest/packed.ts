import type { ParsedFile, PriceRecord, SizeUnit } from "./records.ts";
import { barcodeKey } from "./load/barcode.ts";
import { isShared, keyNumber, recordHash, type PriceList, type PriceRows } from "./load/price-rows.ts";

/**
 * A price list packed on a parse worker for the importing thread. Structured clone of
 * thousands of small objects costs more than parsing them (≈ 5 µs per record measured), and
 * building them again costs the importing thread its time; so strings travel as one joined
 * string with offsets, numbers (with the product identity and description hash already
 * computed) as transferable typed arrays, and the importing thread reads rows in place
 * (PackedRows), slicing strings only for new or changed products.
 */
export interface PackedPrices {
  kind: "prices-packed";
  chainCode: string | null;
  subChainCode: string | null;
  storeCode: string | null;
  count: number;
  /** STRINGS fields per row, each followed by SEP; NULL stands for null. */
  text: string;
  /** Start of every string field in `text` (count × STRINGS + 1 entries). */
  offsets: Int32Array;
  /** NUMBERS fields per row; NaN stands for null. */
  numbers: Float64Array;
  /** Distinct PriceUpdateDate values; NUMBERS field T_TIME indexes them (−1 = null). */
  times: string[];
}

const SEP = "\u0000";
const NULL = "\u0001";
// Neither can occur in XML 1.0 text; replaced should a parser ever let one through.
const RESERVED = /[\u0000\u0001]/g;

// String fields.
const S_CODE = 0, S_NAME = 1, S_MAKER = 2, S_COUNTRY = 3, S_DESCRIPTION = 4, S_UNIT_QTY = 5, S_UNIT_OF_MEASURE = 6, S_SIZE_UNIT = 7;
const STRINGS = 8;
// Number fields.
const N_KEY = 0, N_SHARED = 1, N_PRICE = 2, N_ALLOW = 3, N_HASH = 4, N_TYPE = 5, N_QUANTITY = 6, N_SIZE = 7, N_WEIGHTED = 8, N_QTY_IN_PACKAGE = 9, N_STATUS = 10, N_TIME = 11;
const NUMBERS = 12;

const str = (value: string | null) => (value === null ? NULL : value.includes(SEP) || value.includes(NULL) ? value.replace(RESERVED, "\uFFFD") : value);
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
  const times: string[] = [];
  const timeIndex = new Map<string, number>();
  let at = 0;
  for (let i = 0; i < count; i++) {
    const it = parsed.items[i]!;
    const s = i * STRINGS;
    const fields = [it.itemCode, it.name, it.manufacturer, it.manufactureCountry, it.description, it.unitQty, it.unitOfMeasure, it.sizeUnit];
    let cleaned = false;
    for (let f = 0; f < STRINGS; f++) {
      const value = str(fields[f]!);
      if (fields[f] !== null && value !== fields[f]) cleaned = true;
      parts[s + f] = value;
      offsets[s + f] = at;
      at += value.length + 1;
    }
    const key = barcodeKey(it.itemCode);
    let time = -1;
    if (it.updatedAt !== null) {
      time = timeIndex.get(it.updatedAt) ?? -1;
      if (time < 0) timeIndex.set(it.updatedAt, (time = times.push(it.updatedAt) - 1));
    }
    const n = i * NUMBERS;
    numbers[n + N_KEY] = keyNumber(key);
    numbers[n + N_SHARED] = isShared(key, it.itemType) ? 1 : 0;
    numbers[n + N_PRICE] = it.price;
    numbers[n + N_ALLOW] = it.allowDiscount ? 1 : 0;
    // The hash of the record as the importing thread will read it back.
    numbers[n + N_HASH] = recordHash(cleaned ? { ...it, name: str(it.name), manufacturer: it.manufacturer && str(it.manufacturer), manufactureCountry: it.manufactureCountry && str(it.manufactureCountry), unitQty: it.unitQty && str(it.unitQty), description: it.description && str(it.description) } : it);
    numbers[n + N_TYPE] = num(it.itemType);
    numbers[n + N_QUANTITY] = num(it.quantity);
    numbers[n + N_SIZE] = num(it.sizeAmount);
    numbers[n + N_WEIGHTED] = it.isWeighted ? 1 : 0;
    numbers[n + N_QTY_IN_PACKAGE] = num(it.qtyInPackage);
    numbers[n + N_STATUS] = num(it.itemStatus);
    numbers[n + N_TIME] = time;
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
    times,
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
    const t = this.number(i, N_TIME);
    return t < 0 ? null : this.p.times[t]!;
  }
  productHash(i: number): number {
    return this.number(i, N_HASH);
  }
  record(i: number): PriceRecord {
    return {
      itemCode: this.string(i, S_CODE)!,
      itemType: unnum(this.number(i, N_TYPE)),
      name: this.string(i, S_NAME) ?? "",
      manufacturer: this.string(i, S_MAKER),
      manufactureCountry: this.string(i, S_COUNTRY),
      description: this.string(i, S_DESCRIPTION),
      unitQty: this.string(i, S_UNIT_QTY),
      quantity: unnum(this.number(i, N_QUANTITY)),
      unitOfMeasure: this.string(i, S_UNIT_OF_MEASURE),
      sizeAmount: unnum(this.number(i, N_SIZE)),
      sizeUnit: this.string(i, S_SIZE_UNIT) as SizeUnit | null,
      isWeighted: this.number(i, N_WEIGHTED) === 1,
      qtyInPackage: unnum(this.number(i, N_QTY_IN_PACKAGE)),
      price: this.number(i, N_PRICE),
      allowDiscount: this.number(i, N_ALLOW) === 1,
      itemStatus: unnum(this.number(i, N_STATUS)),
      updatedAt: this.updatedAt(i),
    };
  }
}

/**
 * Opens a packed price list as a PriceList (other kinds pass through).
 * @example (unpackParsed(packParsed(file)) as PriceList).rows.record(0) // equals file.items[0]
 */
export function unpackParsed(packed: ParsedFile | PackedPrices): ParsedFile | PriceList {
  if (packed.kind !== "prices-packed") return packed;
  return { kind: "price-rows", chainCode: packed.chainCode, subChainCode: packed.subChainCode, storeCode: packed.storeCode, rows: new PackedRows(packed) };
}
