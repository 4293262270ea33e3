/**
 * The scanner's Latin-1 view of UTF-8 bytes (textForScan + scanXml's `bytes`): valid UTF-8 with
 * Hebrew is scanned byte for byte and only the values kept are decoded. Whatever the view is
 * taken for must read exactly as the decoded text does — checked on tricky documents (CDATA,
 * entities, attributes, BOM, declaration, Hebrew everywhere) and on every published sample,
 * against the same document forced through the decoded path (UTF-16 with a BOM).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { decodeText, textForScan } from "../../../src/ingest/files/decode.ts";
import { NonAsciiName, rowNode, scanXml } from "../../../src/ingest/files/xml-scan.ts";
import { ROW_ELEMENT_NAMES as ROW_ELEMENTS } from "../../../src/ingest/dialects/row-elements.ts";
import { readPriceFile, readPriceFilePacked } from "../../../src/ingest/parse/read-file.ts";
import { ProductMemo } from "../../../src/ingest/dialects/product-facts.ts";
import type { PackedPrices } from "../../../src/ingest/parse/packed.ts";
import { REAL_SAMPLES, realSamplesFor } from "../../helpers/real-samples.ts";
import { encodeUtf16, encodeWindows1255 } from "../../helpers/ingest/zip.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);
const BOM = new Uint8Array([0xef, 0xbb, 0xbf]);
const withBom = (bytes: Uint8Array) => new Uint8Array(Buffer.concat([BOM, bytes]));

/** Every row (as a node) and the root, scanned from `text` (with `bytes`: a Latin-1 view). */
function scanAll(text: string, bytes?: Uint8Array) {
  const rows: unknown[] = [];
  const scanned = scanXml(text, { rowNames: ROW_ELEMENTS, inPlace: true, bytes, onRow: (name, row, path) => rows.push({ name, row: rowNode(row), path: path.map((p) => p.name) }) });
  return { ...scanned, rows };
}

const tricky = [
  "<Root><ChainName>שופרסל &amp; בנו</ChainName><Items Count=\"2\">",
  "<Item><ItemCode>7290000000015</ItemCode><ItemName><![CDATA[חלב <3% & \"טרי\"]]></ItemName><ManufacturerName>ש&amp;ב &#x5D0;&#1489; &nbsp; & co</ManufacturerName><ItemPrice>5.90</ItemPrice></Item>",
  "<Item Kind=\"מבצע &lt;חם&gt;\" Other='ש'><ItemCode>7290000000022</ItemCode><ItemName>  גבינה\r\n  לבנה  </ItemName><ItemNm/><Nested a=\"ב\"><Deep>ג</Deep></Nested><ItemPrice>12</ItemPrice></Item>",
  "</Items><Note>טקסט <![CDATA[ב-CDATA]]> ועוד &gt; סוף</Note></Root>",
].join("\n");

describe("textForScan", () => {
  test("valid UTF-8 with Hebrew: a Latin-1 view, char i = byte i, BOM and declaration removed", () => {
    const decl = `<?xml version="1.0" encoding="utf-8"?>\r\n`;
    for (const bytes of [utf8(tricky), withBom(utf8(tricky)), withBom(utf8(decl + tricky)), utf8(decl + tricky)]) {
      const out = textForScan(bytes);
      expect(out.bytes).not.toBeNull();
      expect(out.encoding).toBe("utf-8");
      expect(out.text.length).toBe(out.bytes!.length);
      for (let i = 0; i < out.text.length; i++) if (out.text.charCodeAt(i) !== out.bytes![i]) throw new Error(`char ${i} differs from its byte`);
      // The same document decodeText gives, once decoded.
      expect(new TextDecoder().decode(out.bytes!)).toBe(decodeText(bytes).text);
    }
  });

  test("everything else goes the decoded way (bytes null), as decodeText reads it", () => {
    const cases = {
      "utf-16le": encodeUtf16(tricky, false, true),
      "utf-16be without BOM": encodeUtf16(tricky, true, false),
      "windows-1255": encodeWindows1255("<Root><A>חלב</A></Root>"),
      "no Hebrew (gibberish may need repair)": utf8("<Root><A>çìá 3%</A></Root>"),
      "ASCII only": utf8("<Root><A>milk</A></Root>"),
      "cut inside a letter": utf8("<Root><A>חלב</A></Root>חל").subarray(0, -1),
      "a stray byte": new Uint8Array(Buffer.concat([utf8("<Root><A>חלב"), new Uint8Array([0xff]), utf8("</A></Root>")])),
      "a second BOM": withBom(withBom(utf8("<Root><A>חלב</A></Root>"))),
    };
    for (const [label, bytes] of Object.entries(cases)) {
      const out = textForScan(bytes);
      expect({ label, bytes: out.bytes }).toEqual({ label, bytes: null });
      expect({ label, ...out }).toEqual({ label, ...decodeText(bytes), bytes: null });
    }
  });
});

describe("scanXml over a Latin-1 view", () => {
  test("rows, root, CDATA, entities and attributes read exactly as from the decoded text", () => {
    const bytes = withBom(utf8(tricky));
    const view = textForScan(bytes);
    const viaBytes = scanAll(view.text, view.bytes!);
    const viaText = scanAll(decodeText(bytes).text);
    expect(viaBytes).toEqual(viaText);
    expect(viaBytes.rows).toHaveLength(2);
    expect(viaBytes.root.ChainName).toBe("שופרסל & בנו");
    expect((viaBytes.rows[0] as { row: Record<string, string> }).row.ItemName).toBe('חלב <3% & "טרי"');
    expect((viaBytes.rows[0] as { row: Record<string, string> }).row.ManufacturerName).toBe("ש&ב אב &nbsp; & co");
    expect((viaBytes.rows[1] as { row: Record<string, unknown> }).row["@Kind"]).toBe("מבצע <חם>");
  });

  test("a truncated document keeps the same complete rows", () => {
    const bytes = utf8(tricky);
    for (const cut of [200, 300, 420, bytes.length - 20]) {
      const part = bytes.subarray(0, cut);
      const view = textForScan(part);
      if (view.bytes === null) continue; // cut inside a letter: the decoded way
      expect(scanAll(view.text, view.bytes)).toEqual(scanAll(decodeText(part).text));
    }
  });

  test("a non-ASCII tag or attribute name is refused in the view (the reader then decodes)", () => {
    for (const doc of ["<Root><שם>חלב</שם></Root>", '<Root><A שם="1">חלב</A></Root>']) {
      const view = textForScan(utf8(doc));
      expect(() => scanXml(view.text, { bytes: view.bytes! })).toThrow(NonAsciiName);
    }
  });
});

describe("readPriceFile: the view and the decoded text give the same file", () => {
  /** The same document as UTF-16 with a BOM: always the decoded way. */
  const decodedWay = (bytes: Uint8Array) => encodeUtf16(decodeText(bytes).text, false, true);

  function expectSame(bytes: Uint8Array, fileName: string) {
    const a = readPriceFile(bytes, fileName);
    const b = readPriceFile(decodedWay(bytes), fileName);
    expect({ ...a, encoding: null }).toEqual({ ...b, encoding: null });
    const memo = new ProductMemo();
    for (const round of [1, 2]) {
      const packed = readPriceFilePacked(bytes, fileName, memo).parsed;
      const other = readPriceFilePacked(decodedWay(bytes), fileName, new ProductMemo()).parsed;
      // Typed arrays as plain arrays: toEqual tells NaN from NaN inside a Float64Array.
      const plain = (p: object) => ("numbers" in p ? { ...p, numbers: Array.from((p as PackedPrices).numbers), offsets: Array.from((p as PackedPrices).offsets) } : p);
      expect({ round, file: plain(packed) }).toEqual({ round, file: plain(other) });
    }
    return a;
  }

  test("tricky rows, non-ASCII names and malformed files", () => {
    const read = expectSame(withBom(utf8(tricky)), "PriceFull7290027600007-001-202501010000.xml");
    expect(read.parsed.kind === "prices" && read.parsed.items.map((i) => i.name)).toEqual(['חלב <3% & "טרי"', "גבינה\r\n  לבנה".replace(/\s+/g, " ")]);
    expectSame(utf8("<Root><Items><Item><ItemCode>1</ItemCode><ItemPrice>2</ItemPrice><שדה>חלב</שדה></Item></Items></Root>"), "PriceFull7290027600007-001-202501010000.xml");
    const malformed = utf8("<Root><Items><Item><ItemName>חלב</ItemNm></Item></Items></Root>");
    let message = "";
    try {
      readPriceFile(decodedWay(malformed), "PriceFull7290027600007-001-202501010000.xml");
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("unexpected closing tag </ItemNm> at 32, expected </ItemName>");
    expect(() => readPriceFile(malformed, "PriceFull7290027600007-001-202501010000.xml")).toThrow(message);
  });

  const samples = realSamplesFor("Latin-1 view of the published samples") && existsSync(REAL_SAMPLES) ? readdirSync(REAL_SAMPLES).filter((f) => !f.endsWith(".md")) : [];

  test.skipIf(samples.length === 0)("every published sample", async () => {
    let viaView = 0;
    for (const name of samples) {
      const bytes = await Bun.file(join(REAL_SAMPLES, name)).bytes();
      if (textForScan(bytes).bytes !== null) viaView++;
      try {
        expectSame(bytes, name);
      } catch (error) {
        if (!(error instanceof Error && "reason" in error)) throw error;
        expect(() => readPriceFile(decodedWay(bytes), name)).toThrow(error.message);
      }
    }
    // The price files are UTF-8 with Hebrew: the view is what reads them.
    expect(viaView).toBeGreaterThanOrEqual(4);
  });
});
