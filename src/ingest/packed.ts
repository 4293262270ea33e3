import type { ParsedFile, PriceRecord, PricesFile, SizeUnit } from "./records.ts";

/**
 * A PricesFile packed for a postMessage between threads: structured clone of thousands of
 * small objects costs more than parsing them (≈ 5 µs per record measured), so strings travel
 * as one joined string and numbers as one transferable Float64Array.
 */
export interface PackedPrices {
  kind: "prices-packed";
  chainCode: string | null;
  subChainCode: string | null;
  storeCode: string | null;
  count: number;
  /** STRINGS fields per record, joined by SEP; NULL stands for null. */
  text: string;
  /** NUMBERS fields per record; NaN stands for null. */
  numbers: Float64Array;
}

const SEP = "\u0000";
const NULL = "\u0001";
const STRINGS = 9;
const NUMBERS = 8;
// Neither can occur in XML 1.0 text; replaced should a parser ever let one through.
const RESERVED = /[\u0000\u0001]/g;

const str = (value: string | null) => (value === null ? NULL : value.includes(SEP) || value.includes(NULL) ? value.replace(RESERVED, "\uFFFD") : value);
const num = (value: number | null) => (value === null ? Number.NaN : value);

/**
 * Packs a parsed file when it is a price list; other kinds pass through unchanged.
 * @example const packed = packParsed(parsed); worker.postMessage(packed, packed.kind === "prices-packed" ? [packed.numbers.buffer] : [])
 */
export function packParsed(parsed: ParsedFile): ParsedFile | PackedPrices {
  if (parsed.kind !== "prices") return parsed;
  const strings: string[] = new Array(parsed.items.length * STRINGS);
  const numbers = new Float64Array(parsed.items.length * NUMBERS);
  parsed.items.forEach((it, i) => {
    const s = i * STRINGS;
    strings[s] = str(it.itemCode);
    strings[s + 1] = str(it.name);
    strings[s + 2] = str(it.manufacturer);
    strings[s + 3] = str(it.manufactureCountry);
    strings[s + 4] = str(it.description);
    strings[s + 5] = str(it.unitQty);
    strings[s + 6] = str(it.unitOfMeasure);
    strings[s + 7] = str(it.sizeUnit);
    strings[s + 8] = str(it.updatedAt);
    const n = i * NUMBERS;
    numbers[n] = num(it.itemType);
    numbers[n + 1] = num(it.quantity);
    numbers[n + 2] = num(it.sizeAmount);
    numbers[n + 3] = it.isWeighted ? 1 : 0;
    numbers[n + 4] = num(it.qtyInPackage);
    numbers[n + 5] = it.price;
    numbers[n + 6] = it.allowDiscount ? 1 : 0;
    numbers[n + 7] = num(it.itemStatus);
  });
  return {
    kind: "prices-packed",
    chainCode: parsed.chainCode,
    subChainCode: parsed.subChainCode,
    storeCode: parsed.storeCode,
    count: parsed.items.length,
    text: strings.join(SEP),
    numbers,
  };
}

const unstr = (value: string) => (value === NULL ? null : value);
const unnum = (value: number) => (Number.isNaN(value) ? null : value);

/** The inverse of packParsed. */
export function unpackParsed(packed: ParsedFile | PackedPrices): ParsedFile {
  if (packed.kind !== "prices-packed") return packed;
  const strings = packed.count === 0 ? [] : packed.text.split(SEP);
  const numbers = packed.numbers;
  const items: PriceRecord[] = new Array(packed.count);
  for (let i = 0; i < packed.count; i++) {
    const s = i * STRINGS;
    const n = i * NUMBERS;
    items[i] = {
      itemCode: strings[s]!,
      itemType: unnum(numbers[n]!),
      name: strings[s + 1]!,
      manufacturer: unstr(strings[s + 2]!),
      manufactureCountry: unstr(strings[s + 3]!),
      description: unstr(strings[s + 4]!),
      unitQty: unstr(strings[s + 5]!),
      quantity: unnum(numbers[n + 1]!),
      unitOfMeasure: unstr(strings[s + 6]!),
      sizeAmount: unnum(numbers[n + 2]!),
      sizeUnit: unstr(strings[s + 7]!) as SizeUnit | null,
      isWeighted: numbers[n + 3] === 1,
      qtyInPackage: unnum(numbers[n + 4]!),
      price: numbers[n + 5]!,
      allowDiscount: numbers[n + 6] === 1,
      itemStatus: unnum(numbers[n + 7]!),
      updatedAt: unstr(strings[s + 8]!),
    };
  }
  const file: PricesFile = { kind: "prices", chainCode: packed.chainCode, subChainCode: packed.subChainCode, storeCode: packed.storeCode, items };
  return file;
}
