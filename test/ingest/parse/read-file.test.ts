import { describe, expect, test } from "bun:test";
import { gzipSync } from "node:zlib";
import { FileRejectedError, readPriceFile } from "../../../src/ingest/parse/read-file.ts";
import type { PricesFile } from "../../../src/ingest/records.ts";
import { fixtureBytes, readFixture } from "../../helpers/ingest/fixtures.ts";
import { syntheticPriceFull } from "../../helpers/ingest/synthetic-pricefull.ts";
import { makeZip } from "../../helpers/ingest/zip.ts";

const NAME = "PriceFull7290058140886-013-202511021215.xml";

function rejection(bytes: Uint8Array, name = NAME, maxBytes?: number): string {
  try {
    readPriceFile(bytes, name, { maxBytes });
  } catch (error) {
    if (error instanceof FileRejectedError) return error.reason;
    throw error;
  }
  return "accepted";
}

describe("readPriceFile: compression and encodings give the same records", () => {
  const plain = readFixture(NAME);

  test("gzip, zip named .gz, zip named .GZ with a second entry, plain without extension", () => {
    const gz = readFixture(`compressed/${NAME.replace(".xml", ".gz")}`);
    expect(gz).toMatchObject({ compression: "gzip", encoding: "utf-8", partial: false });
    expect(gz.parsed).toEqual(plain.parsed);
    expect(gz.name).toEqual(plain.name);

    const bina = readFixture("compressed/PriceFull7290058159628-001-202211021214.gz");
    expect(bina.compression).toBe("zip");
    expect(bina.parsed).toEqual(readFixture("PriceFull7290058159628-001-202211021214").parsed);

    const promo = readFixture("compressed/PromoFull7290058140886-013-202512120010.GZ");
    expect(promo.compression).toBe("zip");
    expect(promo.parsed).toEqual(readFixture("PromoFull7290058140886-013-202512120010").parsed);
    expect(promo.name).toMatchObject({ type: "promofull", storeCode: "13" });
  });

  test("UTF-8 BOM, UTF-16LE BOM, UTF-16BE without BOM, windows-1255, mis-decoded Hebrew", () => {
    expect(plain.encoding).toBe("utf-8");
    expect(readFixture("Stores7290058140886-202211012005.xml").encoding).toBe("utf-16le");
    expect(readFixture("StoresFull7290058108879-000-202211021115").encoding).toBe("utf-16be");
    const cp1255 = readFixture("PricesFull7290103152017-010-201506030830.xml");
    expect(cp1255.encoding).toBe("windows-1255");
    expect((cp1255.parsed as PricesFile).items[0]!.name).toBe("שוקולד פרה חלב 100 גרם");
    const gibberish = readFixture("Price7290103152017-010-201506031030.xml");
    expect(gibberish.warnings).toContain("repaired mis-decoded Hebrew");
    expect((gibberish.parsed as PricesFile).items).toEqual((cp1255.parsed as PricesFile).items);
  });

  test("the name is parsed alongside", () => {
    expect(plain.name).toEqual({ type: "pricefull", chainCode: "7290058140886", subChainCode: null, storeCode: "13", time: "2025-11-02T12:15:00+02:00", isNullPlaceholder: false });
    expect(readPriceFile(fixtureBytes(NAME), "prices.xml").name).toBeNull();
  });
});

describe("readPriceFile: bad files", () => {
  const xml = fixtureBytes(NAME);

  test("rejections with a reason", () => {
    expect(rejection(new Uint8Array())).toBe("empty");
    expect(rejection(new TextEncoder().encode("  \r\n"))).toBe("empty");
    expect(rejection(new TextEncoder().encode('<!DOCTYPE r [<!ENTITY a "b">]><Root><Items><Item>&a;</Item></Items></Root>'))).toBe("entity-declaration");
    expect(rejection(new TextEncoder().encode("<Root><Items><Item><ItemCode>1</ItemPrice></Item></Items></Root>"))).toBe("malformed-xml");
    expect(rejection(new TextEncoder().encode("not xml at all"))).toBe("malformed-xml");
    const gz = gzipSync(xml);
    const corrupt = new Uint8Array(gz);
    for (let i = 30; i < 80; i++) corrupt[i] ^= 0xa5;
    expect(rejection(corrupt)).toBe("corrupt-compression");
    expect(rejection(gzipSync(new Uint8Array(32 * 2 ** 20)), NAME, 2 ** 20)).toBe("too-large");
    expect(rejection(makeZip([{ name: "a.xml", data: new Uint8Array(4 * 2 ** 20) }]), NAME, 2 ** 20)).toBe("too-large");
    expect(rejection(new TextEncoder().encode("<OrderXml><Envelope><ChainId>1</ChainId></Envelope></OrderXml>"), "whatever.xml")).toBe("unknown-kind");
  });

  test("a truncated PriceFull keeps its complete rows and is flagged partial", () => {
    const text = new TextDecoder().decode(xml);
    const cut = text.slice(0, text.indexOf("<ItemCode>2150</ItemCode>") + 12);
    const read = readPriceFile(new TextEncoder().encode(cut), NAME);
    expect(read.partial).toBe(true);
    expect((read.parsed as PricesFile).items.map((i) => i.itemCode)).toEqual(["7290000042442", "7290106723016"]);
    expect(read.warnings.join(" ")).toContain("truncated");
  });

  test("a cut gzip download of a big PriceFull yields its first rows, partial", () => {
    const big = Bun.gzipSync(new TextEncoder().encode(syntheticPriceFull(3000)));
    const read = readPriceFile(big.subarray(0, Math.floor(big.length * 0.6)), "PriceFull7290058140886-013-202511021215.gz");
    expect(read.partial).toBe(true);
    const items = (read.parsed as PricesFile).items;
    expect(items.length).toBeGreaterThan(500);
    expect(items.length).toBeLessThan(3000);
    expect(read.warnings).toContain("gzip stream is truncated");
  });

  test("a cut inside a Hebrew letter of a BOM-less UTF-8 file keeps the rows' Hebrew (not windows-1255)", () => {
    const bytes = fixtureBytes("PriceFull7290058159628-001-202211021214");
    const text = new TextDecoder().decode(bytes);
    // Cut one byte into the second letter of the second item's name ("מים …": D7 9E D7 99 …).
    const at = new TextEncoder().encode(text.slice(0, text.indexOf("<ItemNm>מים") + "<ItemNm>מ".length)).length + 1;
    expect(bytes[at - 1]).toBe(0xd7);
    const read = readPriceFile(Bun.gzipSync(bytes.slice(0, at) as Uint8Array<ArrayBuffer>), "PriceFull7290058159628-001-202211021214.gz");
    expect(read).toMatchObject({ encoding: "utf-8", partial: true });
    expect((read.parsed as PricesFile).items.map((i) => i.name)).toEqual(["לחמניה אנג'ל רגילה 80ג'"]);
  });

  test("a gzip stream cut after a complete document is still partial (its trailer is missing)", () => {
    const gz = Bun.gzipSync(xml as Uint8Array<ArrayBuffer>);
    const read = readPriceFile(gz.subarray(0, gz.length - 4), "PriceFull7290058140886-013-202511021215.gz");
    expect((read.parsed as PricesFile).items.length).toBe((readFixture(NAME).parsed as PricesFile).items.length);
    expect(read.partial).toBe(true);
  });

  test("a complete file is never partial; content that contradicts the name is reported", () => {
    const read = readPriceFile(xml, "PromoFull7290058140886-013-202511021215.xml");
    expect(read.partial).toBe(false);
    expect(read.parsed.kind).toBe("prices");
    expect(read.warnings).toContain("file name says promofull but the content holds prices");
    const otherChain = readPriceFile(xml, "PriceFull7290027600007-013-202511021215.xml");
    expect(otherChain.warnings).toContain("file name chain 7290027600007 differs from content chain 7290058140886");
  });

  test("empty and NULL placeholder files parse to zero rows", () => {
    const empty = readPriceFile(new TextEncoder().encode('\uFEFF<Root><ChainId>7290725900003</ChainId><StoreId>9032</StoreId><Items Count="0"/></Root>'), "Price7290725900003-9032-202410021600");
    expect(empty.parsed).toEqual({ kind: "prices", chainCode: "7290725900003", subChainCode: null, storeCode: "9032", items: [] });
    const nullPromo = readPriceFile(new TextEncoder().encode("<Root><ChainId>7290700100008</ChainId><Promotions Count=\"0\"/></Root>"), "NULLPromo7290700100008-001-202411021400.xml");
    expect(nullPromo.name?.isNullPlaceholder).toBe(true);
    expect(nullPromo.parsed).toMatchObject({ kind: "promos", promotions: [] });
    const spEmpty = readPriceFile(new TextEncoder().encode("<OrderXml><Envelope><ChainId>7290172900007</ChainId><StoreId>350</StoreId></Envelope></OrderXml>"), "PromoFull7290172900007-350-202410030634.xml");
    expect(spEmpty.parsed).toMatchObject({ kind: "promos", storeCode: "350", promotions: [] });
  });
});

describe("readPriceFile: stores without any chain id in the document", () => {
  test("take the file name's chain", () => {
    const doc = "<Root><SubChains><SubChain><SubChainId>1</SubChainId><Stores><Store><StoreId>5</StoreId><StoreName>x</StoreName></Store></Stores></SubChain></SubChains></Root>";
    const read = readPriceFile(new TextEncoder().encode(doc), "Stores7290058140886-202211012005.xml");
    expect(read.parsed).toMatchObject({ kind: "stores", chainCode: null, stores: [{ chainCode: "7290058140886", subChainCode: "1", storeCode: "5" }] });
  });
});
