import { repairGibberish } from "./gibberish.ts";

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

/**
 * Decodes a price file by sniffing, never by its `encoding=` declaration: BOM (UTF-8,
 * UTF-16LE/BE) → UTF-16 by NUL pattern → strict UTF-8 → windows-1255. Strips the BOM and the
 * XML declaration (so no parser re-decodes) and repairs mis-decoded Hebrew.
 *
 * @example decodeText(new Uint8Array([0xef, 0xbb, 0xbf, 0x3c, 0x41, 0x2f, 0x3e])).text // "<A/>"
 */
export function decodeText(bytes: Uint8Array): DecodedText {
  const warnings: string[] = [];
  let encoding: TextEncodingName;
  let text: string;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    encoding = "utf-8";
    text = strictOrLoose(bytes.subarray(3), warnings);
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
      try {
        text = utf8Strict.decode(bytes);
        encoding = "utf-8";
      } catch {
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

function strictOrLoose(bytes: Uint8Array, warnings: string[]): string {
  try {
    return utf8Strict.decode(bytes);
  } catch {
    warnings.push("invalid UTF-8 sequences replaced");
    return utf8Loose.decode(bytes);
  }
}
