import { isUtf8 } from "node:buffer";
import { repairGibberish } from "./gibberish.ts";
import { incompleteUtf8Tail, looksLikeDamagedUtf8 } from "./utf8-shape.ts";

export type TextEncodingName = "utf-8" | "utf-16le" | "utf-16be" | "windows-1255";

export interface DecodedText {
  /** The document without BOM and without its `<?xml …?>` declaration. */
  text: string;
  encoding: TextEncodingName;
  warnings: string[];
}

const utf8Strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const utf8Loose = new TextDecoder("utf-8", { ignoreBOM: true });
const decoders = {
  "utf-16le": new TextDecoder("utf-16le", { ignoreBOM: true }),
  "utf-16be": new TextDecoder("utf-16be", { ignoreBOM: true }),
  "windows-1255": new TextDecoder("windows-1255"),
};

/** UTF-16 without BOM: NULs in every other byte of the first few hundred bytes. */
function utf16ByNuls(bytes: Uint8Array): "utf-16le" | "utf-16be" | null {
  const n = Math.min(bytes.length, 512) & ~1;
  if (n < 4) return null;
  let even = 0;
  let odd = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) even++;
    if (bytes[i + 1] === 0) odd++;
  }
  const pairs = n / 2;
  if (odd > pairs * 0.4 && even < pairs * 0.05) return "utf-16le";
  if (even > pairs * 0.4 && odd < pairs * 0.05) return "utf-16be";
  return null;
}

const DECLARATION = /^\s*<\?xml[^>]*\?>/;

export interface ScanText extends DecodedText {
  /** When set, `text` is the Latin-1 view of these UTF-8 bytes (one char per byte; see {@link textForScan}). */
  bytes: Uint8Array | null;
}

/** A Hebrew letter (U+05D0–U+05EA) in UTF-8: D7 90–D7 AA. */
function hasHebrewUtf8(bytes: Uint8Array): boolean {
  for (let i = bytes.indexOf(0xd7); i >= 0; i = bytes.indexOf(0xd7, i + 1)) {
    const next = bytes[i + 1];
    if (next !== undefined && next >= 0x90 && next <= 0xaa) return true;
  }
  return false;
}

/**
 * The document's bytes when they can be read as they are — valid UTF-8 holding Hebrew, the common
 * case (every published PriceFull) — without BOM and `<?xml …?>` declaration; else null (UTF-16,
 * windows-1255, damaged or cut UTF-8, text without Hebrew that may need its gibberish repaired:
 * {@link decodeText}'s). The markup is ASCII, so a scanner reads these bytes, or their Latin-1
 * view ({@link textForScan}), as it would the decoded text, and decodes only the values it keeps.
 *
 * @example utf8Body(new TextEncoder().encode("\ufeff<A>חלב</A>")) // the bytes of "<A>חלב</A>"
 */
export function utf8Body(bytes: Uint8Array): Buffer | null {
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const body = bom ? bytes.subarray(3) : bytes;
  const plausible = bom || (!(bytes[0] === 0xff && bytes[1] === 0xfe) && !(bytes[0] === 0xfe && bytes[1] === 0xff) && utf16ByNuls(bytes) === null);
  // A BOM encoded again after the first (EF BB BF) would be U+FEFF in decoded text.
  if (!plausible || (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) || !isUtf8(body) || !hasHebrewUtf8(body)) return null;
  const view = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const declaration = DECLARATION.exec(view.toString("latin1", 0, 512));
  return declaration ? view.subarray(declaration[0].length) : view;
}

/**
 * The text the XML scanner reads. For the common case ({@link utf8Body}) it is the Latin-1 view
 * of the bytes (one char per byte, as cheap as a copy): the markup is ASCII, so the scanner reads
 * it as is and decodes from `bytes` only the values kept. Decoding a whole file to UTF-16 first
 * cost more than inflating it. Anything else is {@link decodeText}'s, `bytes` null.
 *
 * @example textForScan(new TextEncoder().encode("<A>חלב</A>")).text // "<A>\xd7\x97\xd7\x9c\xd7\x91</A>"
 */
export function textForScan(bytes: Uint8Array): ScanText {
  const view = utf8Body(bytes);
  if (view !== null) return { text: view.toString("latin1"), encoding: "utf-8", warnings: [], bytes: view };
  return { ...decodeText(bytes), bytes: null };
}

/**
 * Decodes a price file by sniffing, never by its `encoding=` declaration: BOM (UTF-8,
 * UTF-16LE/BE) → UTF-16 by NUL pattern → strict UTF-8 → UTF-8 cut inside its last character
 * (a truncated download) or with a few stray bytes (replaced, with a warning) → windows-1255.
 * Strips the BOM and the XML declaration (so no parser re-decodes) and repairs mis-decoded Hebrew.
 *
 * @example decodeText(new Uint8Array([0xef, 0xbb, 0xbf, 0x3c, 0x41, 0x2f, 0x3e])).text // "<A/>"
 */
export function decodeText(bytes: Uint8Array): DecodedText {
  const warnings: string[] = [];
  let encoding: TextEncodingName;
  let text: string;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    encoding = "utf-8";
    text = utf8(bytes.subarray(3), warnings, true)!;
  } else if (bytes[0] === 0xff && bytes[1] === 0xfe) {
    encoding = "utf-16le";
    text = decoders[encoding].decode(bytes.subarray(2));
  } else if (bytes[0] === 0xfe && bytes[1] === 0xff) {
    encoding = "utf-16be";
    text = decoders[encoding].decode(bytes.subarray(2));
  } else {
    const utf16 = utf16ByNuls(bytes);
    if (utf16) {
      encoding = utf16;
      text = decoders[utf16].decode(bytes);
    } else {
      const asUtf8 = utf8(bytes, warnings, false);
      if (asUtf8 !== null) {
        text = asUtf8;
        encoding = "utf-8";
      } else {
        encoding = "windows-1255";
        text = decoders[encoding].decode(bytes);
      }
    }
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  // Slicing (not replacing) keeps a multi-megabyte document from being copied.
  const declaration = DECLARATION.exec(text.slice(0, 512));
  if (declaration) text = text.slice(declaration[0].length);
  const gibberish = repairGibberish(text);
  if (gibberish.repaired) warnings.push("repaired mis-decoded Hebrew");
  return { text: gibberish.text, encoding, warnings };
}

/**
 * The bytes as UTF-8: strict; else without an incomplete last character (a cut file); else,
 * when they are UTF-8 with a few stray bytes (or `sure`, after a UTF-8 BOM), with the stray
 * bytes replaced and a warning. Null when they are not UTF-8.
 */
function utf8(bytes: Uint8Array, warnings: string[], sure: boolean): string | null {
  try {
    return utf8Strict.decode(bytes);
  } catch {
    // Only the failure path pays for the checks below.
  }
  const tail = incompleteUtf8Tail(bytes);
  if (tail > 0) {
    try {
      const text = utf8Strict.decode(bytes.subarray(0, bytes.length - tail));
      warnings.push("incomplete UTF-8 character at the end dropped");
      return text;
    } catch {
      // stray bytes elsewhere too
    }
  }
  if (!sure && !looksLikeDamagedUtf8(bytes)) return null;
  warnings.push("invalid UTF-8 sequences replaced");
  return utf8Loose.decode(bytes);
}
