/**
 * Price files are written straight to bytes (XmlWriter.encodedAs/toBytes, cached rows kept
 * encoded): the bytes must be those of the text written out and encoded whole, in every encoding.
 */
import { expect, test } from "bun:test";
import { encodeText, type TextEncoding } from "../../src/demo/encoding.ts";
import { XmlWriter, type XmlStyle } from "../../src/demo/xml.ts";

const styles: XmlStyle[] = [
  { indent: "  ", eol: "\r\n", empty: "space", escapeQuotes: false },
  { indent: null, eol: "\n", empty: "tight", escapeQuotes: true },
];

function write(x: XmlWriter, cache: Map<string, string | Uint8Array>) {
  x.raw('<?xml version="1.0" encoding="utf-8"?>\r\n').open("Root").leaf("ChainId", "7290027600007").open("Items", { Count: 3 });
  for (const [i, name] of ["חלב 3% \"טרי\"", "גבינה & לחם ₪ – ׳", "חלב 3% \"טרי\""].entries()) {
    x.cached(cache, name, (x) => x.open("Item").leaf("ItemName", name).safe("ItemPrice", "5.90").leaf("Empty", null).close("Item"));
    x.leaf("Between", i);
  }
  return x.close("Items").close("Root");
}

test("toBytes gives the text's bytes, BOM first and end trimmed, with cached rows reused", () => {
  const encodings: TextEncoding[] = ["utf8", "utf8-bom", "utf16le", "windows-1255"];
  for (const style of styles) {
    for (const encoding of encodings) {
      const cache = new Map<string, string | Uint8Array>();
      const text = write(new XmlWriter(style), new Map()).toString().trimEnd();
      // Twice over one cache: the second document is made of cached bytes only.
      for (const round of [1, 2]) {
        const bytes = write(new XmlWriter(style).encodedAs(encoding), cache).toBytes();
        expect({ encoding, round, bytes: Array.from(bytes) }).toEqual({ encoding, round, bytes: Array.from(encodeText(text, encoding)) });
      }
      expect([...cache.values()].every((v) => v instanceof Uint8Array)).toBe(true);
    }
  }
});

test("an encoded writer refuses toString, a plain one toBytes", () => {
  expect(() => new XmlWriter(styles[0]!).encodedAs("utf8").toString()).toThrow();
  expect(() => new XmlWriter(styles[0]!).toBytes()).toThrow();
});
