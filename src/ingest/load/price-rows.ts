import type { PriceRecord, PricesFile } from "../records.ts";
import { barcodeKey, isRestrictedCirculation, isValidGtin } from "./barcode.ts";

/**
 * A file's price rows as the loader reads them: by index, with the product identity and a hash
 * of the product's published description already worked out, and product fields only when a
 * product is new or changed. Rows parsed on a worker thread arrive packed (src/ingest/parse/packed.ts)
 * and are read without building an object per row; in-thread records are wrapped by recordRows.
 */
export interface PriceRows {
  readonly count: number;
  /** `barcodeKey(itemCode)`. */
  key(i: number): string;
  /** The key as a number when it is 1–14 digits (a cheap map key), else NaN. */
  keyNumber(i: number): number;
  /** A valid, non-restricted GTIN not marked internal (ItemType 0): one product for all chains. */
  shared(i: number): boolean;
  price(i: number): number;
  allowDiscount(i: number): boolean;
  updatedAt(i: number): string | null;
  /** productHash of the row's product fields when computed ahead (packed rows), else NaN. */
  productHash(i: number): number;
  /** What the row says about its product (new or changed products only). */
  product(i: number): ProductSource;
}

/** The product fields of a price row. */
export interface ProductSource {
  /** Item code as published. */
  itemCode: string;
  /** productName of the record: its name, else its description, else its code. */
  name: string;
  manufacturer: string | null;
  country: string | null;
  unitQty: string | null;
  sizeAmount: number | null;
  sizeUnit: string | null;
  qtyInPackage: number | null;
  isWeighted: boolean;
}

/** A parsed price list whose rows are read through PriceRows. */
export interface PriceList {
  kind: "price-rows";
  chainCode: string | null;
  subChainCode: string | null;
  storeCode: string | null;
  rows: PriceRows;
}

/** The product name a record stands for: its name, else its description, else its code. */
export function productName(item: Pick<PriceRecord, "name" | "description" | "itemCode">): string {
  return item.name?.trim() || item.description?.trim() || item.itemCode;
}

const DIGITS = /^\d{1,14}$/;

/** `Number(key)` for keys of 1–14 digits (exact below 2⁵³), else NaN. */
export function keyNumber(key: string): number {
  return DIGITS.test(key) ? Number(key) : Number.NaN;
}

/** The shared-GTIN rule of productIdentity, on a key. */
export function isShared(key: string, itemType: number | null): boolean {
  return itemType !== 0 && isValidGtin(key) && !isRestrictedCirculation(key);
}

/**
 * A 53-bit hash of the descriptive fields a product takes from a price record (name,
 * manufacturer, country, unit word, size, package quantity, weighed flag). Equal hashes mean
 * nothing to update, without comparing (or even building) the strings.
 * @example productHash({ name: "חלב 3%", manufacturer: "תנובה", country: null, unitQty: null, sizeAmount: 1000, sizeUnit: "ml", qtyInPackage: null, isWeighted: 0 })
 */
export function productHash(f: {
  name: string;
  manufacturer: string | null;
  country: string | null;
  unitQty: string | null;
  sizeAmount: number | null;
  sizeUnit: string | null;
  qtyInPackage: number | null;
  isWeighted: number;
}): number {
  const text = `${f.name}\u0000${f.manufacturer ?? "\u0001"}\u0000${f.country ?? "\u0001"}\u0000${f.unitQty ?? "\u0001"}\u0000${f.sizeUnit ?? "\u0001"}`;
  // Numbers are folded in arithmetically (turning them into text costs more than the hash).
  const numbers = Math.imul((f.sizeAmount ?? -1) * 1000, 0x9e3779b1) ^ Math.imul((f.qtyInPackage ?? -1) * 1000, 0x85ebca6b) ^ f.isWeighted;
  return Bun.hash.xxHash32(text) * 2097152 + ((Bun.hash.xxHash32(text, 0x9e3779b1) ^ numbers) & 0x1fffff);
}

/** A price record's product fields. */
export function productSource(item: PriceRecord): ProductSource {
  return {
    itemCode: item.itemCode,
    name: productName(item),
    manufacturer: item.manufacturer,
    country: item.manufactureCountry,
    unitQty: item.unitQty,
    sizeAmount: item.sizeAmount,
    sizeUnit: item.sizeUnit,
    qtyInPackage: item.qtyInPackage,
    isWeighted: item.isWeighted,
  };
}

/**
 * PriceRows over records parsed in this thread (derived values computed when asked).
 * @example recordRows(file.items).count // 3512
 */
export function recordRows(items: PriceRecord[]): PriceRows {
  return {
    count: items.length,
    key: (i) => barcodeKey(items[i]!.itemCode),
    keyNumber: (i) => keyNumber(barcodeKey(items[i]!.itemCode)),
    shared: (i) => isShared(barcodeKey(items[i]!.itemCode), items[i]!.itemType),
    price: (i) => items[i]!.price,
    allowDiscount: (i) => items[i]!.allowDiscount,
    updatedAt: (i) => items[i]!.updatedAt,
    // In-thread records compare their fields directly; hashing them first would cost more.
    productHash: () => Number.NaN,
    product: (i) => productSource(items[i]!),
  };
}

/** A PricesFile as a PriceList (PriceList passes through). */
export function asPriceList(file: PricesFile | PriceList): PriceList {
  if (file.kind === "price-rows") return file;
  return { kind: "price-rows", chainCode: file.chainCode, subChainCode: file.subChainCode, storeCode: file.storeCode, rows: recordRows(file.items) };
}
