import { describe, expect, test } from "bun:test";
import { decodeText } from "../../../src/ingest/files/decode.ts";
import { repairGibberish } from "../../../src/ingest/files/gibberish.ts";
import { encodeUtf16, encodeWindows1255 } from "../../helpers/ingest/zip.ts";

const doc = "<Root><ItemName>חלב 3% 1 ליטר</ItemName></Root>";
const utf8 = (s: string) => new TextEncoder().encode(s);
const withBom = (bytes: Uint8Array) => Buffer.concat([new Uint8Array([0xef, 0xbb, 0xbf]), bytes]);

describe("decodeText", () => {
  test("UTF-8 with and without BOM", () => {
    expect(decodeText(utf8(doc))).toMatchObject({ text: doc, encoding: "utf-8", warnings: [] });
    expect(decodeText(withBom(utf8(doc)))).toMatchObject({ text: doc, encoding: "utf-8" });
  });

  test("UTF-16LE/BE with BOM, and without BOM by the NUL pattern", () => {
    expect(decodeText(encodeUtf16(doc, false, true))).toMatchObject({ text: doc, encoding: "utf-16le" });
    expect(decodeText(encodeUtf16(doc, true, true))).toMatchObject({ text: doc, encoding: "utf-16be" });
    expect(decodeText(encodeUtf16(doc, false, false))).toMatchObject({ text: doc, encoding: "utf-16le" });
    expect(decodeText(encodeUtf16(doc, true, false))).toMatchObject({ text: doc, encoding: "utf-16be" });
  });

  test("windows-1255 when the bytes are not UTF-8", () => {
    expect(decodeText(encodeWindows1255(doc))).toMatchObject({ text: doc, encoding: "windows-1255" });
  });

  test("the encoding declaration is never trusted, and is removed", () => {
    // Super-Pharm: declares ISO-8859-8, bytes are UTF-8.
    const declared = `<?xml version="1.0" encoding="ISO-8859-8" standalone="no" ?>\r\n${doc}`;
    expect(decodeText(utf8(declared))).toMatchObject({ text: `\r\n${doc}`, encoding: "utf-8" });
    // Declares UTF-8, bytes are windows-1255.
    const lying = encodeWindows1255(`<?xml version="1.0" encoding="utf-8"?>${doc}`);
    expect(decodeText(lying)).toMatchObject({ text: doc, encoding: "windows-1255" });
    // Python-style single quotes after a BOM.
    expect(decodeText(withBom(utf8(`<?xml version='1.0' encoding='utf-8'?>\n${doc}`))).text).toBe(`\n${doc}`);
  });

  test("invalid UTF-8 after a UTF-8 BOM is replaced, with a warning", () => {
    const bytes = withBom(Buffer.concat([utf8("<A>"), new Uint8Array([0xff, 0xfe, 0xfd]), utf8("</A>")]));
    const out = decodeText(bytes);
    expect(out.text).toBe("<A>\uFFFD\uFFFD\uFFFD</A>");
    expect(out.warnings).toEqual(["invalid UTF-8 sequences replaced"]);
  });

  test("UTF-8 without BOM cut inside a Hebrew letter stays UTF-8 (a truncated download)", () => {
    const bytes = utf8(doc);
    // "<Root><ItemName>ח" + the first byte of "ל" (D7 9C).
    const cut = bytes.subarray(0, "<Root><ItemName>".length + 2 + 1);
    expect(cut.at(-1)).toBe(0xd7);
    expect(decodeText(cut)).toEqual({ text: "<Root><ItemName>ח", encoding: "utf-8", warnings: ["incomplete UTF-8 character at the end dropped"] });
  });

  test("UTF-8 without BOM with a stray byte stays UTF-8; the byte is replaced", () => {
    const bytes = Buffer.concat([utf8("<Root><A>"), new Uint8Array([0xa0]), utf8(`</A>${doc.repeat(3)}</Root>`)]);
    expect(decodeText(bytes)).toEqual({ text: `<Root><A>\uFFFD</A>${doc.repeat(3)}</Root>`, encoding: "utf-8", warnings: ["invalid UTF-8 sequences replaced"] });
  });

  test("mis-decoded Hebrew is repaired", () => {
    const latin1 = doc.replace(/[\u05d0-\u05ea]/g, (c) => String.fromCharCode(0xe0 + c.charCodeAt(0) - 0x5d0));
    expect(decodeText(utf8(latin1))).toMatchObject({ text: doc, warnings: ["repaired mis-decoded Hebrew"] });
  });
});

describe("repairGibberish", () => {
  test("windows-1255 read as Latin-1", () => {
    expect(repairGibberish("çìá 3%")).toEqual({ text: "חלב 3%", repaired: true });
  });

  test("UTF-8 read as Latin-1", () => {
    const doubled = Buffer.from(new TextEncoder().encode("שלום")).toString("latin1");
    expect(repairGibberish(doubled)).toEqual({ text: "שלום", repaired: true });
  });

  test("leaves real Hebrew and plain Latin text alone", () => {
    expect(repairGibberish("שלום àáâ")).toEqual({ text: "שלום àáâ", repaired: false });
    expect(repairGibberish("Crème brûlée")).toEqual({ text: "Crème brûlée", repaired: false });
  });
});
