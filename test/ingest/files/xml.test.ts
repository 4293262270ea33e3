import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { decompress } from "../../../src/ingest/files/compression.ts";
import { decodeText } from "../../../src/ingest/files/decode.ts";
import { FileRejectedError } from "../../../src/ingest/files/rejected.ts";
import { rowNode, scanXml } from "../../../src/ingest/files/xml-scan.ts";
import { parseXml, type XmlNode } from "../../../src/ingest/files/xml.ts";
import { ROW_ELEMENT_NAMES as ROW_ELEMENTS } from "../../../src/ingest/dialects/row-elements.ts";

function reason(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof FileRejectedError) return error.reason;
    throw error;
  }
  return "accepted";
}

describe("scanXml", () => {
  test("the Bun.XML.parse shape: attributes, text, repeated children, empty elements", () => {
    const doc = `<Root a="1"><Items Count="2"><Item><C>1</C><E/><F></F></Item><Item><C>2</C></Item></Items><T k='v'>txt</T></Root>`;
    const { rootName, root } = scanXml(doc);
    expect(rootName).toBe("Root");
    expect(root).toEqual({
      "@a": "1",
      Items: { "@Count": "2", Item: [{ C: "1", E: "", F: "" }, { C: "2" }] },
      T: { "@k": "v", "#text": "txt" },
    });
    expect(root).toEqual((Bun.XML.parse(doc) as { Root: XmlNode }).Root);
  });

  test("entities and character references; unknown ones and bare & stay as written", () => {
    const { root } = scanXml("<R><A>M&amp;M &quot;x&quot; &apos;&#x5D0;&#1489;&#x0D;</A><B>a & b &nbsp; c</B></R>");
    expect(root).toEqual({ A: `M&M "x" 'אב\r`, B: "a & b &nbsp; c" });
  });

  test("CDATA is literal, comments and processing instructions are skipped", () => {
    const { root } = scanXml("<?xml version='1.0'?><!-- c --><R><A><![CDATA[<b>&amp;</b>]]></A><!-- <B>no</B> --><?pi x?><C>1</C></R>");
    expect(root).toEqual({ A: "<b>&amp;</b>", C: "1" });
  });

  test("lenient: unquoted attribute values, a stray < in text", () => {
    expect(scanXml("<R><Items Count=5 x=y/><A>a < b</A></R>").root).toEqual({ Items: { "@Count": "5", "@x": "y" }, A: "a < b" });
  });

  test("mismatched or stray closing tags throw", () => {
    expect(() => scanXml("<R><A>1</B></R>")).toThrow(SyntaxError);
    expect(() => scanXml("<R><A>1</A></R></R>")).toThrow(SyntaxError);
    expect(() => scanXml("<R/><S/>")).toThrow(SyntaxError);
    expect(() => scanXml("just text")).toThrow(SyntaxError);
  });

  test("DOCTYPE is an error, never read", () => {
    expect(() => scanXml('<!DOCTYPE r [<!ENTITY e "x">]><r>&e;</r>')).toThrow(SyntaxError);
  });

  test("streams outermost rows below the root with their ancestors", () => {
    const rows: [string, unknown, string[]][] = [];
    const doc = "<Store><Branches><Branch><StoreID>1</StoreID></Branch><Branch><StoreID>2</StoreID></Branch></Branches></Store>";
    const out = scanXml(doc, { rowNames: ROW_ELEMENTS, onRow: (name, row, path) => rows.push([name, rowNode(row), path.map((p) => p.name)]) });
    expect(rows).toEqual([
      ["Branch", { StoreID: "1" }, ["Store", "Branches"]],
      ["Branch", { StoreID: "2" }, ["Store", "Branches"]],
    ]);
    // Rows are not kept; the root (named like a row) is not a row.
    expect(out).toEqual({ rootName: "Store", root: { Branches: "" }, truncated: null });
  });

  test("rows nested in rows stay inside the outer row", () => {
    const rows: unknown[] = [];
    const doc = "<Root><Promotions><Promotion><PromotionId>9</PromotionId><PromotionItems><Item><ItemCode>1</ItemCode></Item></PromotionItems></Promotion></Promotions></Root>";
    scanXml(doc, { rowNames: ROW_ELEMENTS, onRow: (_, row) => rows.push(rowNode(row)) });
    expect(rows).toEqual([{ PromotionId: "9", PromotionItems: { Item: { ItemCode: "1" } } }]);
  });

  test.each([
    ["inside a row's text", "<Root><Items><Item><C>1</C></Item><Item><C>2"],
    ["inside a tag", "<Root><Items><Item><C>1</C></Item><Item><C>2</C></Ite"],
    ["inside a tag name", "<Root><Items><Item><C>1</C></Item><It"],
    ["inside an attribute", '<Root><Items><Item><C>1</C></Item><Item a="x'],
    ["between rows", "<Root><Items><Item><C>1</C></Item>\r\n  "],
  ])("input ending %s keeps the complete rows", (_, doc) => {
    const rows: unknown[] = [];
    const out = scanXml(doc, { rowNames: ROW_ELEMENTS, onRow: (_, row) => rows.push(rowNode(row)) });
    expect(rows).toEqual([{ C: "1" }]);
    expect(out.truncated).not.toBeNull();
    expect(out.rootName).toBe("Root");
  });

  test("without streaming, a cut document drops its unfinished row", () => {
    const out = scanXml("<Root><ChainId>7</ChainId><Items><Item><C>1</C></Item><Item><C>2", { rowNames: ROW_ELEMENTS });
    expect(out.root).toEqual({ ChainId: "7", Items: { Item: { C: "1" } } });
    expect(out.truncated).toContain("ends");
  });
});

describe("parseXml", () => {
  test("DOCTYPE and ENTITY declarations are refused (no billion laughs)", () => {
    const laughs = '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]><lolz>&lol2;</lolz>';
    expect(reason(() => parseXml(laughs))).toBe("entity-declaration");
    expect(reason(() => parseXml('<Root><!ENTITY x "y"></Root>'))).toBe("entity-declaration");
    expect(reason(() => parseXml("<!doctype html><Root/>"))).toBe("entity-declaration");
  });

  test("malformed XML is rejected; a truncated document is partial", () => {
    expect(reason(() => parseXml("<Root><Items><Item><C>1</Item></Items></Root>"))).toBe("malformed-xml");
    expect(reason(() => parseXml("   "))).toBe("empty");
    // Text before the first tag: a README that mentions `<Root>`, not a price file.
    expect(reason(() => parseXml("# Samples\nEach file is a <Root> with <Items Count=\"0\"/> inside.\n"))).toBe("malformed-xml");
    expect(parseXml("\r\n\t <Root/>").rootName).toBe("Root");
    const partial = parseXml("<Root><Items><Item><C>1</C></Item><Item><C>", { rowNames: ROW_ELEMENTS, onRow: () => {} });
    expect(partial.partial).toBe(true);
    expect(partial.warnings[0]).toContain("truncated");
  });

  test("reads every own fixture the way Bun.XML.parse does", () => {
    const dir = join(import.meta.dir, "../../fixtures/ingest");
    const files = readdirSync(dir).filter((f) => statSync(join(dir, f)).isFile() && !f.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(15);
    for (const file of files) {
      const text = decodeText(decompress(new Uint8Array(readFileSync(join(dir, file)))).bytes).text;
      // Bun's parser rejects bare `&`; that fixture is compared after escaping it.
      const strict = text.replace(/&(?![a-zA-Z#][\w#]*;)/g, "&amp;");
      const ours = scanXml(strict);
      expect({ file, root: ours.root }).toEqual({ file, root: (Bun.XML.parse(strict) as Record<string, XmlNode>)[ours.rootName]! });
    }
  });
});
