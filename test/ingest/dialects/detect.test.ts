import { describe, expect, test } from "bun:test";
import { detectDialect, kindOfRow } from "../../../src/ingest/dialects/detect.ts";
import { scanXml } from "../../../src/ingest/files/xml-scan.ts";
import { readFixture } from "../../helpers/ingest/fixtures.ts";

describe("detectDialect", () => {
  test.each([
    ["PriceFull7290058140886-013-202511021215.xml", "cerberus", "prices"],
    ["PriceFull7290058159628-001-202211021214", "bina", "prices"],
    ["PriceFull7290696200003-001-202211020303-001.xml", "matrix", "prices"],
    ["PromoFull7290696200003-001-202211020303-001.xml", "matrix", "promos"],
    ["StoresFull7290696200003-000-202211020600-000.xml", "matrix", "stores"],
    ["PriceFull7290172900007-083-202409270311.xml", "superpharm", "prices"],
    ["PromoFull7290172900007-350-202410030634.xml", "superpharm", "promos"],
    ["StoresFull7290172900007--202211020200", "superpharm", "stores"],
    ["Stores7290027600007-000-202211020201", "shufersal-sap", "stores"],
    ["Price7290873255550-004-202410011200.xml", "tivtaam", "prices"],
    ["PriceFull7290027600007-001-413-20260824-030000.xml", "new", "prices"],
    ["PromoFull7290027600007-002-413-20260728-093000.xml", "new", "promos"],
    ["Stores7290027600007-000-20260701-020000.xml", "new", "stores"],
    ["PromoFull7290058140886-013-202512120010", "cerberus", "promos"],
    ["Stores7290058140886-202211012005.xml", "cerberus", "stores"],
    ["StoresFull7290058108879-000-202211021115", "bina", "stores"],
  ])("%s → %s %s", (file, dialect, kind) => {
    const read = readFixture(file);
    expect([read.dialect as string, read.parsed.kind as string]).toEqual([dialect, kind]);
  });

  test("empty files: the container tells the kind, else the file name", () => {
    const emptyPrices = scanXml('<Root><XmlDocVersion>19</XmlDocVersion><ChainId>1</ChainId><Items Count="0"/></Root>');
    expect(detectDialect(emptyPrices.rootName, emptyPrices.root)).toEqual({ dialect: "cerberus", kind: "prices" });
    const wolt = scanXml("<Root><ChainID>7290058249350</ChainID><Promotions/></Root>");
    expect(detectDialect(wolt.rootName, wolt.root)).toEqual({ dialect: "new", kind: "promos" });
    const envelope = scanXml("<OrderXml><Envelope><ChainId>7290172900007</ChainId><StoreId>350</StoreId></Envelope></OrderXml>");
    expect(detectDialect(envelope.rootName, envelope.root)).toEqual({ dialect: "superpharm", kind: null });
    expect(detectDialect(envelope.rootName, envelope.root, "promofull")).toEqual({ dialect: "superpharm", kind: "promos" });
  });

  test("row kinds", () => {
    expect(kindOfRow("Product", {})).toBe("prices");
    expect(kindOfRow("Sale", {})).toBe("promos");
    expect(kindOfRow("STORE", {})).toBe("stores");
    expect(kindOfRow("Line", { ItemCode: "1", ItemPrice: "2" })).toBe("prices");
    expect(kindOfRow("Line", { PromotionId: "1" })).toBe("promos");
    expect(kindOfRow("Line", { StoreId: "1", StoreName: "x" })).toBe("stores");
    expect(kindOfRow("Line", {})).toBeNull();
  });
});
