// No imports: the parse and import workers load this (zod, which product-id.ts needs, costs them start-up time).

/**
 * The one rule of product keys: an item code without its leading zeros (they are not significant;
 * all zeros stay `"0"`). The loader stores products under it (src/ingest/load/barcode.ts), the
 * API looks them up by it (productKey, src/pricing/queries.ts barcodeKey), tests build their
 * fixtures with it. Most codes start with another digit: no regular expression runs for them.
 * @example withoutLeadingZeros("007290000066318") // "7290000066318"
 */
export function withoutLeadingZeros(code: string): string {
  return code.charCodeAt(0) === 48 ? code.replace(/^0+(?=.)/, "") : code;
}
