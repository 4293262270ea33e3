import * as jsc from "bun:jsc";
import { latin1, leafValue, rowText, type PathElement, type RowElement } from "../files/xml-scan.ts";
import type { XmlNode, XmlValue } from "../files/xml.ts";
import type { PriceRecord, PricesFile } from "../records.ts";
import { parseIsraelDateTime } from "./dates.ts";
import { detach } from "../load/detach.ts";
import { fromContext, HEADER_FIELDS } from "./header-fields.ts";
import { agorotOfBytes, toAgorot } from "./money.ts";
import { PRICE_FIELDS } from "./price-fields.ts";
import type { KnownProduct, ProductFacts, ProductMemo, RawProduct } from "./product-facts.ts";
import { collectRows, headerOf } from "./tree.ts";
import { normaliseSize } from "./units.ts";
import type { Parsed, RowParser } from "./row-parser.ts";
import { cleanCode, cleanText, isPlaceholder, rawCode, stripCode, textOf, toFlag, toInt, toPositive } from "./values.ts";

/** Row elements of price files: the table in row-elements.ts. */
import { PRICE_ROWS } from "./row-elements.ts";
export { PRICE_ROWS };

// Slot numbers of the fields read per row.
const S = Object.fromEntries(PRICE_FIELDS.fields.map((f, i) => [f, i])) as Record<(typeof PRICE_FIELDS.fields)[number], number>;

/** The file's header codes, as the loader's file record carries them. */
export interface PriceFileCodes {
  chainCode: string | null;
  subChainCode: string | null;
  storeCode: string | null;
}

/** The product fields a row's facts are read from. */
const PRODUCT_SLOTS = [S.itemCode, S.itemType, S.name, S.description, S.manufacturer, S.manufactureCountry, S.unitQty, S.quantity, S.unitOfMeasure, S.isWeighted, S.qtyInPackage];

/**
 * Reads price rows of any dialect (`Root/Items/Item`, `Prices/Products/Product`,
 * `OrderXml/…/Details/Line`, `NewDataSet/item`): a row's product facts, its price, discount
 * flag, status and time. Rows without an item code or a readable price are skipped and counted.
 * With a {@link ProductMemo}, a product whose raw fields were seen before is not read again;
 * fields the scanner left in place (`inPlace`) are then read without slicing a string — on the
 * document's bytes when the row was scanned on them (`onBytes`), so that a remembered product's
 * row costs no string at all; reading any other value gives the row its text (rowText).
 */
export class PriceRowReader {
  private readonly leaves = new Int32Array(PRICE_FIELDS.fields.length);
  private readonly nodes: (XmlValue | undefined)[] = new Array(PRICE_FIELDS.fields.length);
  private row!: RowElement;
  private noCode = 0;
  private noPrice = 0;
  private first: { chainCode?: XmlValue; subChainCode?: XmlValue; storeCode?: XmlValue } | null = null;
  // Rows of a file mostly repeat the previous row's PriceUpdateDate: read it once per run of equal values.
  private lastRaw: string | null = null;
  private lastValue: string | undefined;
  private lastIso: string | null = null;
  // The current row's product span on the bytes (see spanKey): from, to (-1: none) and each field's start and end in it.
  private spanFrom = -1;
  private spanTo = -1;
  private readonly layout = new Int32Array(PRODUCT_SLOTS.length * 2);
  /** The last row read (valid until the next `read`). */
  price = 0;
  allowDiscount = true;
  itemStatus: number | null = null;
  updatedAt: string | null = null;

  constructor(private readonly memo: ProductMemo | null = null) {}

  /** The value of a field (entities decoded), as readSlots gives it. */
  private value(slot: number): XmlValue | undefined {
    const leaf = this.leaves[slot]!;
    return leaf >= 0 ? leafValue(this.row, leaf) : this.nodes[slot];
  }

  /** The leaf of a field when the scanner left it in place in the text (not a node, no CDATA…), else -1. */
  private inPlace(slot: number): number {
    const leaf = this.leaves[slot]!;
    return leaf >= 0 && this.row.starts[leaf]! >= 0 ? leaf : -1;
  }

  /** Reads one row: its product, or null when the row is skipped (no code, no price). */
  read(row: RowElement): KnownProduct | null {
    this.row = row;
    PRICE_FIELDS.readLeafSlots(row, this.leaves, this.nodes);
    this.first ??= { chainCode: this.value(S.chainCode), subChainCode: this.value(S.subChainCode), storeCode: this.value(S.storeCode) };
    const hash = this.memo ? this.productKey() : -1;
    // A remembered product had a usable item code, and this row has the same raw code.
    const product = hash >= 0 ? this.memo!.find(hash, this.sameProduct) : undefined;
    let itemCode: string | null = null;
    // A new product's span is copied before any value is read: reading gives the row its own text (rowText), off the document's bytes.
    const span = !product && hash >= 0 && this.spanFrom >= 0 ? this.spanProduct() : null;
    if (!product) {
      itemCode = rawCode(this.value(S.itemCode));
      if (!itemCode || isPlaceholder(itemCode)) {
        this.noCode++;
        return null;
      }
    }
    const priceLeaf = this.inPlace(S.price);
    // In place, a price with an entity in it does not read: the decoded value decides.
    const price =
      (priceLeaf < 0 ? null : row.onBytes ? agorotOfBytes(row.bytes!, row.starts[priceLeaf]!, row.ends[priceLeaf]!) : toAgorot(row.text, row.starts[priceLeaf], row.ends[priceLeaf])) ??
      toAgorot(textOf(this.value(S.price)));
    if (price === null || price < 0) {
      this.noPrice++;
      return null;
    }
    this.price = price;
    this.allowDiscount = this.flag(S.allowDiscount) ?? toFlag(this.value(S.allowDiscount), true);
    this.itemStatus = this.digits(S.itemStatus) ?? toInt(this.value(S.itemStatus));
    this.updatedAt = this.updated();
    if (product) return product;
    const facts = productFacts((slot) => this.value(slot), itemCode!);
    if (hash < 0) return { facts, packed: null };
    return this.memo!.add(hash, span ?? this.rawProductFields(), detachFacts(facts));
  }

  /** A `0`/`1` flag left in place, else null (the general reading decides). */
  private flag(slot: number): boolean | null {
    const leaf = this.inPlace(slot);
    if (leaf < 0 || this.row.ends[leaf]! - this.row.starts[leaf]! !== 1) return null;
    const c = this.code(this.row.starts[leaf]!);
    return c === 49 ? true : c === 48 ? false : null;
  }

  /** A small all-digit integer left in place, else null (the general reading decides). */
  private digits(slot: number): number | null {
    const leaf = this.inPlace(slot);
    if (leaf < 0) return null;
    const start = this.row.starts[leaf]!;
    const end = this.row.ends[leaf]!;
    if (end === start || end - start > 9) return null;
    let n = 0;
    for (let i = start; i < end; i++) {
      const d = this.code(i) - 48;
      if (d < 0 || d > 9) return null;
      n = n * 10 + d;
    }
    return n;
  }

  /** The row's time: its raw text compared in place with the previous row's, read only when it changes. */
  private updated(): string | null {
    const leaf = this.inPlace(S.updatedAt);
    if (leaf >= 0) {
      const start = this.row.starts[leaf]!;
      const end = this.row.ends[leaf]!;
      const last = this.lastRaw;
      if (last !== null && this.rawIs(last, start, end)) return this.lastIso;
      const raw = this.row.onBytes ? latin1(this.row.bytes as Buffer, start, end) : this.row.text.slice(start, end);
      this.lastRaw = raw;
      this.lastValue = undefined;
      // Plain ASCII on the bytes is its own value: the row keeps off text (rowText) for a new time.
      this.lastIso = this.timeOf(this.row.onBytes && plainAscii(raw) ? raw : textOf(this.value(S.updatedAt)));
      return this.lastIso;
    }
    // Not in place (absent, sliced or a node): compared by value.
    const value = textOf(this.value(S.updatedAt));
    if (this.lastRaw !== null || value !== this.lastValue) {
      this.lastRaw = null;
      this.lastValue = value;
      this.lastIso = this.timeOf(value);
    }
    return this.lastIso;
  }

  /** Char `i` of the row's raw text: its byte when the row is on the bytes (the Latin-1 view's char). */
  private code(i: number): number {
    return this.row.onBytes ? this.row.bytes![i]! : this.row.text.charCodeAt(i);
  }

  /** The row's raw text from `start` to `end` is `raw`. */
  private rawIs(raw: string, start: number, end: number): boolean {
    if (end - start !== raw.length) return false;
    if (!this.row.onBytes) return this.row.text.startsWith(raw, start);
    const bytes = this.row.bytes!;
    for (let k = 0; k < raw.length; k++) if (bytes[start + k] !== raw.charCodeAt(k)) return false;
    return true;
  }

  /** parseIsraelDateTime, through the run's memo when there is one. */
  private timeOf(value: string | undefined): string | null {
    return this.memo && value ? this.memo.time(value, parseIsraelDateTime) : parseIsraelDateTime(value);
  }

  /**
   * A 53-bit hash of the product fields' raw text (absent fields marked), or -1 when one of
   * them is not a plain leaf in place (attributes, repeats, CDATA): such rows are read afresh.
   */
  private productKey(): number {
    this.spanFrom = -1;
    if (this.row.onBytes) {
      const key = this.spanKey();
      if (key >= 0) return key;
    }
    const { text, starts, ends, onBytes } = this.row;
    const bytes = this.row.bytes!;
    // Raw text of a Latin-1 view (bytes) and of decoded text are never compared: their hashes start apart.
    let a = this.row.bytes === null ? 0x811c9dc5 : 0x2f3c8d71;
    let b = 0x9e3779b9;
    for (let k = 0; k < PRODUCT_SLOTS.length; k++) {
      const slot = PRODUCT_SLOTS[k]!;
      const leaf = this.inPlace(slot);
      if (leaf < 0) {
        if (this.leaves[slot]! >= 0 || this.nodes[slot] !== undefined) return -1;
        a = Math.imul(a ^ 0xffff, 0x01000193);
        b = Math.imul(b ^ 0xffff, 0x5bd1e995);
        continue;
      }
      const start = starts[leaf]!;
      const end = ends[leaf]!;
      if (onBytes) {
        for (let i = start; i < end; i++) {
          const c = bytes[i]!;
          a = Math.imul(a ^ c, 0x01000193);
          b = Math.imul(b ^ c, 0x5bd1e995);
        }
      } else {
        for (let i = start; i < end; i++) {
          const c = text.charCodeAt(i);
          a = Math.imul(a ^ c, 0x01000193);
          b = Math.imul(b ^ c, 0x5bd1e995);
        }
      }
      a = Math.imul(a ^ 0x10000, 0x01000193);
      b = Math.imul(b ^ (end - start), 0x5bd1e995);
    }
    return (a >>> 0) * 2097152 + ((b ^ (b >>> 15)) & 0x1fffff);
  }

  /**
   * The key of a row on the document's bytes whose product fields are consecutive leaves left in
   * place (the published files write them one after the other): a hash of the bytes from the
   * first field's value to the last's, with the span and each field's place in it set for
   * {@link sameSpan}. -1 when the fields are not so (they are then hashed one by one).
   */
  private spanKey(): number {
    const { starts, ends } = this.row;
    const layout = this.layout;
    let from = 0x7fffffff;
    let to = -1;
    let first = 0x7fffffff;
    let last = -1;
    let present = 0;
    for (let k = 0; k < PRODUCT_SLOTS.length; k++) {
      const slot = PRODUCT_SLOTS[k]!;
      const leaf = this.leaves[slot]!;
      if (leaf < 0) {
        if (this.nodes[slot] !== undefined) return -1;
        layout[2 * k] = -1;
        layout[2 * k + 1] = -1;
        continue;
      }
      const start = starts[leaf]!;
      if (start < 0) return -1;
      const end = ends[leaf]!;
      layout[2 * k] = start;
      layout[2 * k + 1] = end;
      present++;
      if (leaf < first) first = leaf;
      if (leaf > last) last = leaf;
      if (start < from) from = start;
      if (end > to) to = end;
    }
    // Other leaves between them (a price, a repeated field) would make every row's span differ.
    if (present === 0 || last - first + 1 !== present) return -1;
    this.spanFrom = from;
    this.spanTo = to;
    // Keyed by the item code's bytes and every field's place in the span (their lengths): cheap,
    // and products that share both are rare; the confirmation (sameSpan) makes it exact.
    let a = 0x2f3c8d71;
    let h = 0x5bd1e995;
    for (let k = 0; k < layout.length; k++) {
      const at = layout[k]! < 0 ? -1 : layout[k]! - from;
      layout[k] = at;
      a = Math.imul(a ^ at, 0x01000193);
      h = Math.imul(h ^ at, 0x5bd1e995);
    }
    const bytes = this.row.bytes!;
    for (let i = from + layout[0]!, end = from + layout[1]!; i < end; i++) {
      a = Math.imul(a ^ bytes[i]!, 0x01000193);
      h = Math.imul(h ^ bytes[i]!, 0x5bd1e995);
    }
    return (a >>> 0) * 2097152 + ((h ^ (h >>> 15)) & 0x1fffff);
  }

  /** The current row's span (see spanKey) copied, for the memo. */
  private spanProduct(): RawProduct {
    const span = new Uint8Array(this.spanTo - this.spanFrom);
    span.set(this.row.bytes!.subarray(this.spanFrom, this.spanTo));
    return { raws: null, span, layout: this.layout.slice() };
  }

  /** The current row's product fields are exactly the remembered ones. */
  private readonly sameProduct = (raw: RawProduct): boolean => (raw.span !== null ? this.sameSpan(raw.span, raw.layout!) : this.sameFields(raw.raws!));

  /** The current row's span (see spanKey) has this layout and these bytes: then every product field is the same. */
  private sameSpan(span: Uint8Array, layout: Int32Array): boolean {
    const from = this.spanFrom;
    if (from < 0 || span.length !== this.spanTo - from) return false;
    const mine = this.layout;
    for (let k = 0; k < mine.length; k++) if (layout[k] !== mine[k]) return false;
    return (this.row.bytes as Buffer).compare(span, 0, span.length, from, this.spanTo) === 0;
  }

  /** The current row's product fields have exactly this raw text (null: absent). */
  private sameFields(raws: readonly (string | null)[]): boolean {
    const { starts, ends } = this.row;
    for (let k = 0; k < PRODUCT_SLOTS.length; k++) {
      const raw = raws[k]!;
      const leaf = this.inPlace(PRODUCT_SLOTS[k]!);
      if (raw === null) {
        if (leaf >= 0) return false;
      } else if (leaf < 0 || !this.rawIs(raw, starts[leaf]!, ends[leaf]!)) {
        return false;
      }
    }
    return true;
  }

  /** The product fields' raw text, copied (kept by the memo across files). */
  private rawProductFields(): RawProduct {
    rowText(this.row);
    const { text, starts, ends } = this.row;
    const raws = PRODUCT_SLOTS.map((slot) => {
      const leaf = this.inPlace(slot);
      return leaf < 0 ? null : detach(text.slice(starts[leaf]!, ends[leaf]!));
    });
    return { raws, span: null, layout: null };
  }

  /** Warnings on skipped rows. */
  warnings(): string[] {
    const warnings: string[] = [];
    if (this.noCode) warnings.push(`${this.noCode} price rows without ItemCode skipped`);
    if (this.noPrice) warnings.push(`${this.noPrice} price rows without a readable ItemPrice skipped`);
    return warnings;
  }

  /** The file's codes: from the document header, else from the first row. */
  codes(root: XmlNode): PriceFileCodes {
    const header = headerOf(root, PRICE_ROWS);
    const first = this.first;
    return {
      chainCode: stripCode(fromContext(header, HEADER_FIELDS.chainCode) ?? first?.chainCode),
      subChainCode: stripCode(fromContext(header, HEADER_FIELDS.subChainCode) ?? first?.subChainCode),
      storeCode: stripCode(fromContext(header, HEADER_FIELDS.storeCode) ?? first?.storeCode),
    };
  }
}

/** ASCII without `&`: raw text that reads as itself (no entity, nothing to decode). */
function plainAscii(raw: string): boolean {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c > 127 || c === 38) return false;
  }
  return true;
}

function productFacts(v: (slot: number) => XmlValue | undefined, itemCode: string): ProductFacts {
  const name = cleanText(v(S.name));
  // The description often repeats the name verbatim: clean it once.
  const description = v(S.description) === v(S.name) ? name : cleanText(v(S.description));
  const unitQty = cleanCode(v(S.unitQty));
  const unitOfMeasure = cleanCode(v(S.unitOfMeasure));
  const quantity = toPositive(v(S.quantity));
  const isWeighted = toFlag(v(S.isWeighted));
  const size = normaliseSize({ unitQty, quantity, unitOfMeasure, isWeighted, name: name ?? description });
  return {
    itemCode,
    itemType: toInt(v(S.itemType)),
    name: name ?? description ?? "",
    manufacturer: cleanText(v(S.manufacturer)),
    manufactureCountry: cleanCode(v(S.manufactureCountry)),
    description,
    unitQty,
    quantity,
    unitOfMeasure,
    sizeAmount: size.sizeAmount,
    sizeUnit: size.sizeUnit,
    isWeighted,
    qtyInPackage: toPositive(v(S.qtyInPackage)),
  };
}

/** Facts whose strings do not keep their file's text alive (they outlive the file in the memo). */
function detachFacts(f: ProductFacts): ProductFacts {
  const name = detach(f.name);
  return {
    ...f,
    itemCode: detach(f.itemCode),
    name,
    description: f.description === f.name ? name : detach(f.description),
    manufacturer: detach(f.manufacturer),
    manufactureCountry: detach(f.manufactureCountry),
    unitQty: detach(f.unitQty),
    unitOfMeasure: detach(f.unitOfMeasure),
  };
}

/**
 * Streams price rows of any dialect into {@link PriceRecord}s (see {@link PriceRowReader}).
 *
 * @example const p = priceRowParser(); p.row(itemNode, []); p.finish(root).file.items[0].price // 590
 */
export function priceRowParser(): RowParser<PricesFile> {
  const items: PriceRecord[] = [];
  const reader = new PriceRowReader();
  return {
    row(row) {
      const product = reader.read(row);
      if (!product) return;
      const f = product.facts;
      items.push({
        itemCode: f.itemCode,
        itemType: f.itemType,
        name: f.name,
        manufacturer: f.manufacturer,
        manufactureCountry: f.manufactureCountry,
        description: f.description,
        unitQty: f.unitQty,
        quantity: f.quantity,
        unitOfMeasure: f.unitOfMeasure,
        sizeAmount: f.sizeAmount,
        sizeUnit: f.sizeUnit,
        isWeighted: f.isWeighted,
        qtyInPackage: f.qtyInPackage,
        price: reader.price,
        allowDiscount: reader.allowDiscount,
        itemStatus: reader.itemStatus,
        updatedAt: reader.updatedAt,
      });
    },
    finish(root) {
      return { file: { kind: "prices", ...reader.codes(root), items }, warnings: reader.warnings() };
    },
  };
}

/**
 * {@link priceRowParser} over a whole in-memory document.
 * @example parsePrices(scanXml(text).root).file.items.length // 2243
 */
export function parsePrices(root: XmlNode): Parsed<PricesFile> {
  const parser = priceRowParser();
  for (const { node, path } of collectRows(root, PRICE_ROWS)) parser.row(node, path);
  return parser.finish(root);
}

// `value` reads a leaf the general way (rowText, entities): only on a row's cold paths (a new
// product, a value that does not read in place, a file's first row), yet small enough that the
// JIT inlined it — with all it calls — at each of them, which more than doubled the optimizing
// compile of `read` (≈ 30 KB of machine code against 13 KB; 0.3–1 s of a compiler thread, during
// which the parse ran slower code).
// (`noInline` is in bun:jsc, not in its type definitions.)
(jsc as unknown as { noInline?: (f: unknown) => void }).noInline?.(PriceRowReader.prototype["value"]);
