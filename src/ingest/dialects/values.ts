import { withoutLeadingZeros } from "../../identity/product-key.ts";
import type { XmlValue } from "../files/xml.ts";

/**
 * The text of an element: `<A>x</A>`, `<A k="v">x</A>`, the first of repeated `<A>`s.
 * @example textOf({ "@k": "v", "#text": "x" }) // "x"
 */
export function textOf(value: XmlValue | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return textOf(value[0]);
  const text = value["#text"];
  return typeof text === "string" ? text : "";
}

const PLACEHOLDERS = new Set(["", "לא ידוע", "unknown", "{}", "null", "none", "n/a", "-"]);

/**
 * True for the files' "no value" spellings: empty, `לא ידוע`, `unknown`, `{}`, all-zero `00000`…
 * @example isPlaceholder("0000000") // true
 */
export function isPlaceholder(text: string): boolean {
  const len = text.length;
  if (len === 0) return true;
  const c = text.charCodeAt(0);
  if (c === 48 /* 0 */) {
    // `00000`, `0000000`, `0000000000000`: zero runs used as "unknown".
    if (len < 5) return false;
    for (let i = 1; i < len; i++) if (text.charCodeAt(i) !== 48) return false;
    return true;
  }
  switch (len) {
    case 1:
      return c === 45; // -
    case 2:
      return text === "{}";
    case 3:
    case 4:
    case 7:
      // The ASCII spellings (`n/a`, `null`, `none`, `unknown`) all start with n or u: only
      // those are lower-cased (a copy per value otherwise, e.g. every `100 גרם`).
      if (c === 110 || c === 117 || c === 78 || c === 85) return PLACEHOLDERS.has(text.toLowerCase());
      return text === "לא ידוע";
  }
  return false;
}

/** Whitespace to collapse, or a control character to drop: one test on the hot path. */
const NEEDS_CLEANING = /\s\s|[\x00-\x1F\x7F]/;
/** C0 control characters other than whitespace, and DEL: a NUL in a published name is never stored or served. */
const CONTROL = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]/g;

/**
 * Trimmed text with runs of whitespace (incl. `&#x0D;` line breaks) collapsed and control
 * characters (NUL, …, DEL) dropped; null for placeholders.
 *
 * @example cleanText("  צומת גולני\r\n ") // "צומת גולני"
 * @example cleanText("במבה\u0000 אסם")    // "במבה אסם"
 * @example cleanText("לא ידוע")          // null
 */
export function cleanText(value: XmlValue | undefined): string | null {
  const raw = typeof value === "string" ? value : textOf(value);
  if (raw === undefined) return null;
  let text = raw.trim();
  if (NEEDS_CLEANING.test(text)) text = text.replace(CONTROL, "").replace(/\s+/g, " ").trim();
  return isPlaceholder(text) ? null : text;
}

/**
 * {@link cleanText} for short coded values (`UnitQty`, `ManufactureCountry`): trimmed, no
 * whitespace collapsing (saves a regex per field on the hot path).
 * @example cleanCode(" 100 גרם  ") // "100 גרם"
 */
export function cleanCode(value: XmlValue | undefined): string | null {
  const raw = typeof value === "string" ? value : textOf(value);
  if (raw === undefined) return null;
  const text = raw.trim();
  return isPlaceholder(text) ? null : text;
}

/**
 * A numeric code as published, trimmed (leading zeros kept); null when empty or not digits.
 * @example rawCode(" 007290000000125 ") // "007290000000125"
 */
export function rawCode(value: XmlValue | undefined): string | null {
  const text = (typeof value === "string" ? value : textOf(value))?.trim();
  return text ? text : null;
}

/**
 * A store / chain / sub-chain code without leading zeros (`001` → `1`); null when empty.
 * @example stripCode("038") // "38"
 */
export function stripCode(value: XmlValue | undefined): string | null {
  const text = textOf(value)?.trim();
  if (!text || isPlaceholderCode(text)) return null;
  return /^\d+$/.test(text) ? withoutLeadingZeros(text) : text;
}
const isPlaceholderCode = (text: string) => PLACEHOLDERS.has(text.toLowerCase());

/**
 * A decimal number; null when empty, a placeholder or not numeric.
 * @example toNumber("250.00") // 250
 */
export function toNumber(value: XmlValue | undefined): number | null {
  const text = (typeof value === "string" ? value : textOf(value))?.trim();
  if (!text) return null;
  const n = Number(text);
  if (Number.isFinite(n)) return n;
  const comma = Number(text.replace(",", "."));
  return Number.isFinite(comma) ? comma : null;
}

/**
 * A positive number, null for 0, negatives and placeholders (`0.0000` quantities mean "unknown").
 * @example toPositive("0.0000") // null
 */
export function toPositive(value: XmlValue | undefined): number | null {
  const n = toNumber(value);
  return n !== null && n > 0 ? n : null;
}

/**
 * An integer (`1`, `01`, `1.00`), null otherwise.
 * @example toInt("01") // 1
 */
export function toInt(value: XmlValue | undefined): number | null {
  const n = toNumber(value);
  return n !== null && Number.isInteger(n) ? n : null;
}

/**
 * A 0/1 flag (`1`, `1.0`, `true`, `כן`) → boolean; `fallback` when empty.
 * @example toFlag("1") // true
 */
export function toFlag(value: XmlValue | undefined, fallback = false): boolean {
  if (value === "1") return true;
  if (value === "0") return false;
  const text = textOf(value)?.trim().toLowerCase();
  if (!text) return fallback;
  if (text === "1" || text === "true" || text === "כן" || text === "y" || text === "yes") return true;
  const n = Number(text);
  return Number.isFinite(n) ? n !== 0 : fallback;
}
