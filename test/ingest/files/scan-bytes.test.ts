/**
 * scanBytes (the markup scanned on a document's UTF-8 bytes, rows left in place on them) must
 * read every document it takes exactly as scanXml reads the Latin-1 view and the decoded text,
 * and hand everything else back (NotOnBytes) for scanXml to read or refuse. The price reader's
 * in-place readings on bytes (price, flags, time, the memo's product hash and confirmation)
 * must give what they give on text: checked through readPriceFilePacked against the same
 * documents forced through the decoded text (UTF-16 with a BOM).
 */
import { describe, expect, test } from "bun:test";
import { decodeText, textForScan, utf8Body } from "../../../src/ingest/files/decode.ts";
import { NotOnBytes, scanBytes } from "../../../src/ingest/files/xml-scan-bytes.ts";
import { rowNode, scanXml } from "../../../src/ingest/files/xml-scan.ts";
import { ROW_ELEMENT_NAMES as ROW_ELEMENTS } from "../../../src/ingest/dialects/row-elements.ts";
import { readPriceFile, readPriceFilePacked } from "../../../src/ingest/parse/read-file.ts";
import { ProductMemo } from "../../../src/ingest/dialects/product-facts.ts";
import { agorotOfBytes, toAgorot } from "../../../src/ingest/dialects/money.ts";
import type { PackedPrices } from "../../../src/ingest/parse/packed.ts";
import { encodeUtf16 } from "../../helpers/ingest/zip.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);
const BOM = new Uint8Array([0xef, 0xbb, 0xbf]);
const withBom = (bytes: Uint8Array) => new Uint8Array(Buffer.concat([BOM, bytes]));
const NAME = "PriceFull7290027600007-001-202501010000.xml";

/** Rows (as nodes, with their path and whether they came on bytes), root and root name. */
function viaBytes(bytes: Uint8Array) {
  const body = utf8Body(bytes);
  if (body === null) throw new Error("not valid UTF-8 with Hebrew");
  const rows: unknown[] = [];
  const scanned = scanBytes(body, { rowNames: ROW_ELEMENTS, onRow: (name, row, path) => rows.push({ name, onBytes: row.onBytes, row: rowNode(row), path: path.map((p) => p.name) }) });
  return { ...scanned, rows };
}

function viaText(text: string, bytes?: Uint8Array) {
  const rows: unknown[] = [];
  const scanned = scanXml(text, { rowNames: ROW_ELEMENTS, inPlace: true, bytes, onRow: (name, row, path) => rows.push({ name, onBytes: true, row: rowNode(row), path: path.map((p) => p.name) }) });
  return { ...scanned, rows };
}

/** A price file without `<!` (what scanBytes takes): Hebrew everywhere, entities, attributes, nesting, CRLF, a PI. */
const prices = [
  `<?xml version="1.0" encoding="utf-8"?>\r\n<Root>\r\n  <ChainId>7290027600007</ChainId>\r\n  <ChainName>שופרסל &amp; בנו</ChainName>\r\n  <StoreId>1</StoreId>`,
  `  <Items Count="4" Note='ש"ב' Bare=5 Ent="&lt;x&gt;">`,
  `    <Item>\r\n      <PriceUpdateDate>2025-01-01 10:00:00</PriceUpdateDate>\r\n      <ItemCode>7290000000015</ItemCode>\r\n      <ItemNm>חלב 3% &amp; "טרי"</ItemNm>\r\n      <ManufacturerName>ש&amp;ב &#x5D0;&#1489; &nbsp; & co</ManufacturerName>\r\n      <ItemPrice> 5.90 </ItemPrice>\r\n      <AllowDiscount>0</AllowDiscount>\r\n      <ItemStatus>1</ItemStatus>\r\n    </Item>`,
  `    <Item Kind="מבצע &lt;חם&gt;"><PriceUpdateDate>2025-01-01 10:00:00</PriceUpdateDate><ItemCode>7290000000022</ItemCode><ItemNm>  גבינה\r\n  לבנה  </ItemNm><UnitQty/><Nested a="ב"><Deep>ג</Deep></Nested><ItemPrice>12</ItemPrice><AllowDiscount>1</AllowDiscount></Item>`,
  `    <?pi inside?><Item><PriceUpdateDate>2025-01-0&#50; 09:00:00</PriceUpdateDate><ItemCode>7290000000015</ItemCode><ItemNm>חלב 3% &amp; "טרי"</ItemNm><ManufacturerName>ש&amp;ב &#x5D0;&#1489; &nbsp; & co</ManufacturerName><ItemPrice>&#53;.90</ItemPrice><AllowDiscount>x</AllowDiscount></Item>`,
  `    <Item><PriceUpdateDate>2025-01-03 09:00:00</PriceUpdateDate><ItemCode>7290000000039</ItemCode><ItemNm>לחם</ItemNm><ItemPrice>7,5</ItemPrice><ItemStatus>12a</ItemStatus></Item>`,
  `    <Item><PriceUpdateDate>תאריך</PriceUpdateDate><ItemCode>7290000000046</ItemCode><ItemNm>ביצים</ItemNm><ItemPrice>-1</ItemPrice></Item><Item/>`,
  `    <Item><ItemCode>7290000000053</ItemCode><ItemNm>ריק</ItemNm><ItemPrice></ItemPrice></Item><Item><ItemCode></ItemCode><ItemPrice>1</ItemPrice></Item>`,
  `  </Items>\r\n  <Note>טקסט ועוד &gt; סוף</Note>\r\n  <Blank>\r\n  </Blank>\r\n</Root>\r\n`,
].join("\r\n");

describe("scanBytes", () => {
  test("reads a document as scanXml reads its Latin-1 view and its decoded text (rows, paths, root, attributes, entities)", () => {
    for (const bytes of [utf8(prices), withBom(utf8(prices))]) {
      const onBytes = viaBytes(bytes);
      const view = textForScan(bytes);
      expect(onBytes).toEqual(viaText(view.text, view.bytes!));
      expect(onBytes).toEqual(viaText(decodeText(bytes).text));
      expect(onBytes.rows).toHaveLength(7);
      expect(onBytes.root.ChainName).toBe("שופרסל & בנו");
      expect((onBytes.root.Items as Record<string, string>)["@Note"]).toBe('ש"ב');
      expect((onBytes.rows[1] as { row: Record<string, unknown> }).row["@Kind"]).toBe("מבצע <חם>");
    }
  });

  test("rows whose fields change order, repeat, hold text between them or nest read as scanXml reads them", () => {
    const doc = [
      "<Root><Items>",
      "<Item>\r\n <A>א</A>\r\n <B>1</B> <C>2</C></Item>",
      "<Item><B>3</B><A>ב</A><A>ג</A><C></C></Item>",
      "<Item>\n<A>ד</A> טקסט <B>4</B>\n</Item>",
      "<Item><A>ה</A><B><Deep>5</Deep></B><C x=\"1\">6</C><D/><E>&amp;</E></Item>",
      "<Item>  </Item><Item><A>ו</A><Bb>7</Bb><B>8</B></Item>",
      "</Items></Root>",
    ].join("\n");
    const bytes = utf8(doc);
    const onBytes = viaBytes(bytes);
    expect(onBytes).toEqual(viaText(decodeText(bytes).text));
    // (`<Item>  </Item>` is a leaf of Items, not a row, either way)
    expect(onBytes.rows).toHaveLength(5);
  });

  test("a run of plain rows read by their own loop stops at any other row and the scanner reads on as scanXml does", () => {
    const plain = (code: number) => `<Item>\r\n  <A>א${code}</A>\r\n  <B>${code}</B>\r\n</Item>`;
    const breaks = [
      '<Item x="1"><A>attribute</A></Item>',
      "<Item><A>nested</A><B><C>1</C></B></Item>",
      "<Item><A>text</A> between <B>2</B></Item>",
      "<Item> text first <A>3</A></Item>",
      "<Item><A>text last</A> end </Item>",
      "<Item></Item>",
      "<Item>\r\n</Item>",
      "<Item/>",
      "<Line><A>another row name</A></Line>",
      "<Other>a leaf of Items</Other>",
      "<Other><A>an element of Items</A></Other>",
      "<Item><A>self-closing leaf</A><B/></Item>",
      "<Item><A>an entity &amp; more</A></Item>",
      "<Item><A>a &lt; b</A></Item>",
      "<Item><A>unclosed</A>",
    ];
    for (const [k, breaker] of breaks.entries()) {
      const doc = ["<Root><Items>", plain(1), plain(2), " טקסט ", plain(3), breaker, plain(4), plain(5), "</Items><After>א</After></Root>"].join("\r\n  ");
      const bytes = utf8(doc);
      let onBytes: unknown;
      try {
        onBytes = viaBytes(bytes);
      } catch (error) {
        // Only the unclosed row makes the document malformed: handed back to the text scanner.
        expect({ k, handedBack: error instanceof NotOnBytes }).toEqual({ k, handedBack: k === breaks.length - 1 });
        continue;
      }
      expect({ k, ...(onBytes as object) }).toEqual({ k, ...viaText(decodeText(bytes).text) });
    }
  });

  test("hands back (NotOnBytes) what only the text scanner reads: scanXml then reads or refuses it", () => {
    const refused = {
      CDATA: "<Root><Items><Item><ItemNm><![CDATA[חלב]]></ItemNm></Item></Items></Root>",
      comment: "<Root><!-- הערה --><A>חלב</A></Root>",
      "DOCTYPE in text": '<Root><A t="<!DOCTYPE">חלב</A></Root>',
      "non-ASCII tag name": "<Root><שם>חלב</שם></Root>",
      "non-ASCII attribute name": '<Root><A שם="1">חלב</A></Root>',
      "stray <": "<Root><A>חלב < 3</A></Root>",
      "closing tag with a space": "<Root><A>חלב</A ></Root>",
      "mismatched closing tag": "<Root><Items><Item><ItemName>חלב</ItemNm></Item></Items></Root>",
      "starts with text": "חלב<Root></Root>",
      "second root": "<Root><A>חלב</A></Root><Other/>",
    };
    for (const [label, doc] of Object.entries(refused)) {
      expect({ label, refused: (() => { try { viaBytes(utf8(doc)); return false; } catch (error) { return error instanceof NotOnBytes; } })() }).toEqual({ label, refused: true });
    }
    // Cut anywhere: the text scanner keeps the complete rows.
    const whole = utf8(prices);
    for (let cut = 40; cut < whole.length; cut += 97) {
      if (utf8Body(whole.subarray(0, cut)) === null) continue;
      expect(() => viaBytes(whole.subarray(0, cut))).toThrow(NotOnBytes);
    }
  });
});

describe("readPriceFilePacked on bytes and on the decoded text give the same file", () => {
  const decodedWay = (bytes: Uint8Array) => encodeUtf16(decodeText(bytes).text, false, true);
  const plain = (p: object) => ("numbers" in p ? { ...p, numbers: Array.from((p as PackedPrices).numbers), offsets: Array.from((p as PackedPrices).offsets) } : p);

  test("new products, remembered ones (from the bytes), times and prices with entities, flags, skipped rows", () => {
    const bytes = utf8(prices);
    const memo = new ProductMemo();
    // Round 1 reads every product; round 2 finds them in the memo and reads those rows from the bytes.
    for (const round of [1, 2, 3]) {
      const onBytes = readPriceFilePacked(bytes, NAME, memo);
      const other = readPriceFilePacked(decodedWay(bytes), NAME, new ProductMemo());
      expect({ round, ...onBytes, parsed: plain(onBytes.parsed), encoding: null }).toEqual({ round, ...other, parsed: plain(other.parsed), encoding: null });
    }
    const read = readPriceFilePacked(bytes, NAME, memo).parsed as PackedPrices;
    expect(read.count).toBe(4);
    expect(read.updates).toContain("2025-01-02T09:00:00+02:00");
  });

  test("the memo knows a product again by its span of bytes, or field by field when other fields lie between its own; a changed field is a new product", () => {
    const row = (code: string, name: string, price: string, between = "") =>
      `<Item>\r\n  <PriceUpdateDate>2025-01-01 10:00:00</PriceUpdateDate>\r\n  <ItemCode>${code}</ItemCode>\r\n  <ItemType>1</ItemType>\r\n  <ItemNm>${name}</ItemNm>${between}\r\n  <ManufacturerName>תנובה</ManufacturerName>\r\n  <UnitQty>ליטר</UnitQty>\r\n  <Quantity>1</Quantity>\r\n  <ItemPrice>${price}</ItemPrice>\r\n</Item>`;
    const file = (rows: string[]) => utf8(`<Root><ChainId>7290027600007</ChainId><StoreId>1</StoreId><Items>\r\n${rows.join("\r\n")}\r\n</Items></Root>`);
    for (const between of ["", "\r\n  <ItemPrice>9.90</ItemPrice>"]) {
      const memo = new ProductMemo();
      let added = 0;
      const add = memo.add.bind(memo);
      memo.add = (...args: Parameters<ProductMemo["add"]>) => (added++, add(...args));
      const first = file([row("7290000000015", "חלב 3%", "5.90", between), row("7290000000022", "גבינה לבנה", "4.50", between), row("7290000000039", "לחם", "7", between)]);
      readPriceFilePacked(first, NAME, memo);
      expect({ between, added }).toEqual({ between, added: 3 });
      // Another store's file: the same products at other prices, one name changed by one letter.
      const second = file([row("7290000000015", "חלב 3%", "6.10", between), row("7290000000022", "גבינה לבנב", "4.50", between), row("7290000000039", "לחם", "7.20", between)]);
      const read = readPriceFilePacked(second, NAME, memo);
      expect({ between, added }).toEqual({ between, added: 4 });
      const other = readPriceFilePacked(decodedWay(second), NAME, new ProductMemo());
      expect(plain(read.parsed)).toEqual(plain(other.parsed));
    }
  });

  test("truncated and malformed files: the same rows or the same error as the text", () => {
    const whole = utf8(prices);
    for (let cut = 300; cut < whole.length; cut += 131) {
      const part = whole.subarray(0, cut);
      const a = readPriceFilePacked(part, NAME, new ProductMemo());
      const b = readPriceFilePacked(decodedWay(part), NAME, new ProductMemo());
      expect({ cut, ...a, parsed: plain(a.parsed), encoding: null }).toEqual({ cut, ...b, parsed: plain(b.parsed), encoding: null });
    }
    const malformed = utf8("<Root><Items><Item><ItemCode>1</ItemCode><ItemName>חלב</ItemNm></Item></Items></Root>");
    let message = "";
    try {
      readPriceFile(decodedWay(malformed), NAME);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("unexpected closing tag </ItemNm>");
    expect(() => readPriceFilePacked(malformed, NAME, new ProductMemo())).toThrow(message);
  });
});

test("agorotOfBytes reads a price as toAgorot reads its text", () => {
  const cases = ["5.90", " 5.9 ", "65", "0.0295", "0.0250", "-1.5", "+2", "7,5", "", "  ", ".", "-", "1.2.3", "12a", "1e3", "99999999999999999999", "０", "3.", ".5"];
  for (const price of cases) {
    const bytes = Buffer.from(`<P>${price}</P>`, "latin1");
    expect({ price, value: agorotOfBytes(bytes, 3, 3 + price.length) }).toEqual({ price, value: toAgorot(bytes.toString("latin1"), 3, 3 + price.length) });
  }
});
