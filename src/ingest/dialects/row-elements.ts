/**
 * The one table of row element names: which element of a file is one row, per kind of file, in
 * every dialect (lower case; files are matched case-insensitively, without namespace prefixes).
 * Super-Pharm's legacy `Line` holds all three kinds; its fields tell which (detect.ts kindOfLine).
 * A new dialect whose rows have another name adds it here (see README.md in this folder).
 */
export const ROW_ELEMENTS = {
  /** Cerberus/Bina/2026 `Item`, Matrix `Product`, Super-Pharm `Line`, Tiv Taam `item`. */
  prices: ["item", "product", "line"],
  /** `Promotion`, Matrix `Sale` (one per item), Super-Pharm `Line`. */
  promos: ["promotion", "sale", "line"],
  /** `Store` (Cerberus, Bina, 2026; SAP's `STORE`), Matrix `Branch`, Super-Pharm `Line`. */
  stores: ["store", "branch", "line"],
} as const;

/** The element every kind shares (decided by the row's fields). */
export const SHARED_ROW = "line";

/** Every row element name, whatever the kind: what the scanner collects as rows. */
export const ROW_ELEMENT_NAMES: ReadonlySet<string> = new Set([...ROW_ELEMENTS.prices, ...ROW_ELEMENTS.promos, ...ROW_ELEMENTS.stores]);

export const PRICE_ROWS: ReadonlySet<string> = new Set(ROW_ELEMENTS.prices);
export const PROMO_ROWS: ReadonlySet<string> = new Set(ROW_ELEMENTS.promos);
export const STORE_ROWS: ReadonlySet<string> = new Set(ROW_ELEMENTS.stores);

/** The kind a row element names on its own (null for the shared `line` and for other names). */
export function kindOfElement(localName: string): "prices" | "promos" | "stores" | null {
  if (localName === SHARED_ROW) return null;
  for (const kind of ["prices", "promos", "stores"] as const) if ((ROW_ELEMENTS[kind] as readonly string[]).includes(localName)) return kind;
  return null;
}
