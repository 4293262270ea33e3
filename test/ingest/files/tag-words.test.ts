/**
 * TagWords (a row leaf's `name>` compared on the bytes four at a time) must say exactly what a
 * byte-by-byte compare says: every name length (under four bytes, whole words, a last word
 * overlapping), a difference at any byte, a missing `>`, and near the document's end or start.
 */
import { describe, expect, test } from "bun:test";
import { TagWords } from "../../../src/ingest/files/tag-words.ts";

function byBytes(bytes: Uint8Array, at: number, name: string): boolean {
  if (at < 0) return false;
  for (let k = 0; k < name.length; k++) if (bytes[at + k] !== name.charCodeAt(k)) return false;
  return bytes[at + name.length] === 62;
}

const NAMES = ["A", "Id", "Qty", "Code", "Price", "ItemCode", "bIsWeighted", "UnitOfMeasure", "ManufacturerItemDescription"];

describe("TagWords", () => {
  for (const name of NAMES) {
    test(`${name} (${name.length} chars) agrees with a byte compare`, () => {
      const words = new TagWords(name);
      const good = Buffer.from(`<${name}>1</${name}>`);
      const view = new DataView(good.buffer, good.byteOffset, good.length);
      expect(words.at(view, 1, good.length)).toBe(true);
      expect(words.at(view, name.length + 5, good.length)).toBe(true);
      // Each byte of `name>` changed in turn; the `>` replaced by a space.
      for (let k = 0; k <= name.length; k++) {
        const bad = Buffer.from(good);
        bad[1 + k] = k === name.length ? 32 : bad[1 + k]! ^ 0x20;
        const badView = new DataView(bad.buffer, bad.byteOffset, bad.length);
        expect(words.at(badView, 1, bad.length)).toBe(false);
        expect(words.at(badView, 1, bad.length)).toBe(byBytes(bad, 1, name));
      }
      // At every position, including those whose words would run past the end.
      for (let at = -1; at <= good.length; at++) expect(words.at(view, at, good.length)).toBe(byBytes(good, at, name));
    });
  }

  test("a document cut inside the name or before its `>` does not match", () => {
    const words = new TagWords("ItemPrice");
    for (const text of ["<ItemPrice", "<ItemPric", "<Item"]) {
      const bytes = Buffer.from(text);
      expect(words.at(new DataView(bytes.buffer, bytes.byteOffset, bytes.length), 1, bytes.length)).toBe(false);
    }
  });

  test("a view into a larger buffer compares at its own offsets", () => {
    const whole = Buffer.from("xxxxxxx<UnitQty>2</UnitQty>");
    const part = whole.subarray(7);
    const view = new DataView(part.buffer, part.byteOffset, part.length);
    expect(new TagWords("UnitQty").at(view, 1, part.length)).toBe(true);
    expect(new TagWords("UnitQty").at(view, 12, part.length)).toBe(true);
    expect(new TagWords("UnitQty").at(view, 11, part.length)).toBe(false);
  });
});
