import { describe, expect, test } from "bun:test";
import { parsePrices } from "../../../src/ingest/dialects/prices.ts";
import { scanXml } from "../../../src/ingest/files/xml-scan.ts";
import type { PriceRecord } from "../../../src/ingest/records.ts";
import { pricesOf } from "../../helpers/ingest/fixtures.ts";

const byCode = (items: PriceRecord[], code: string) => items.find((i) => i.itemCode === code)!;

describe("prices, Cerberus (Root/Items/Item, BOM, XmlDocVersion)", () => {
  const file = pricesOf("PriceFull7290058140886-013-202511021215.xml");

  test("header and rows; a row without ItemCode is skipped", () => {
    expect(file).toMatchObject({ kind: "prices", chainCode: "7290058140886", subChainCode: "1", storeCode: "13" });
    expect(file.items.map((i) => i.itemCode)).toEqual(["7290000042442", "7290106723016", "2150", "7290011194246"]);
  });

  test("a full record", () => {
    expect(file.items[0]).toEqual({
      itemCode: "7290000042442",
      itemType: 1,
      name: "חלב תנובה 3% 1 ליטר",
      manufacturer: "תנובה",
      manufactureCountry: "ישראל",
      description: "חלב בקרטון 3% שומן",
      unitQty: "ליטר",
      quantity: 1,
      unitOfMeasure: '100 מ"ל',
      sizeAmount: 1000,
      sizeUnit: "ml",
      isWeighted: false,
      qtyInPackage: 1,
      price: 680,
      allowDiscount: true,
      itemStatus: 1,
      updatedAt: "2025-11-01T14:31:00+02:00",
    });
  });

  test("placeholders, bare &, money, weighed items, junk dates, names with sizes", () => {
    const bamba = byCode(file.items, "7290106723016");
    expect(bamba).toMatchObject({ manufacturer: null, manufactureCountry: null, qtyInPackage: null, price: 360, allowDiscount: false });
    expect(bamba.description).toBe("במבה M&M & חברים");
    // 02:30 on the spring DST switch day does not exist: same instant on the summer clock.
    expect(bamba.updatedAt).toBe("2025-03-28T03:30:00+03:00");
    expect(byCode(file.items, "2150")).toMatchObject({ itemType: 0, isWeighted: true, sizeAmount: 1000, sizeUnit: "g", price: 1290 });
    const cottage = byCode(file.items, "7290011194246");
    expect(cottage).toMatchObject({ unitQty: null, quantity: null, unitOfMeasure: null, sizeAmount: 250, sizeUnit: "g", price: 6500, updatedAt: null, itemStatus: 0 });
  });
});

describe("prices, other dialects", () => {
  test("Bina (ItemNm, 00000 units, sizes from the name)", () => {
    const file = pricesOf("PriceFull7290058159628-001-202211021214");
    expect(file.items.map((i) => [i.name, i.price, i.sizeAmount, i.sizeUnit, i.unitQty])).toEqual([
      ["לחמניה אנג'ל רגילה 80ג'", 200, 80, "g", null],
      ["מים מינרלים 6*1.5 ליטר", 1390, 9000, "ml", null],
    ]);
  });

  test("Matrix/Laib (Prices/Products/Product, ChainID, ManufactureName, UnitMeasure, BisWeighted, itemStatus, YYYY/MM/DD)", () => {
    const file = pricesOf("PriceFull7290696200003-001-202211020303-001.xml");
    expect(file).toMatchObject({ chainCode: "7290696200003", subChainCode: "1", storeCode: "1" });
    expect(file.items[0]).toMatchObject({ manufacturer: "עלית", description: "שוקולד חלב", unitOfMeasure: "100 גרם", itemStatus: 1, price: 590, updatedAt: "2022-11-01T21:05:00+02:00" });
    // Leading zeros of an item code are kept as published.
    expect(file.items[1]).toMatchObject({ itemCode: "0007290000000", itemType: 0, sizeAmount: 750, sizeUnit: "ml", price: 4250, description: null });
  });

  test("Super-Pharm (OrderXml/Envelope/Header/Details/Line, blsWeighted, no ItemType, store id in the envelope)", () => {
    const file = pricesOf("PriceFull7290172900007-083-202409270311.xml");
    expect(file).toMatchObject({ chainCode: "7290172900007", subChainCode: "100", storeCode: "83" });
    expect(file.items[0]).toMatchObject({ itemCode: "7290000178707", itemType: null, description: "צ'יפס בטעם טבעי", sizeAmount: 50, sizeUnit: "g", price: 590, updatedAt: "2024-03-03T00:00:00+02:00" });
    expect(file.items[1]).toMatchObject({ unitQty: 'מ"ל', quantity: 120, sizeAmount: 120, sizeUnit: "ml" });
  });

  test("Tiv Taam (NewDataSet/item with an xs:schema)", () => {
    const file = pricesOf("Price7290873255550-004-202410011200.xml");
    expect(file.items).toHaveLength(1);
    expect(file.items[0]).toMatchObject({ itemCode: "7290004131074", price: 1690, sizeAmount: 200, sizeUnit: "g" });
  });

  test("2025–26 (ChainID, ISO PriceUpdateTime, LastSaleDateTime, empty ItemStatus)", () => {
    const file = pricesOf("PriceFull7290027600007-001-413-20260824-030000.xml");
    expect(file).toMatchObject({ chainCode: "7290027600007", subChainCode: "1", storeCode: "413" });
    expect(file.items[0]).toMatchObject({ manufacturer: "תנובה", price: 710, itemStatus: null, updatedAt: "2026-08-20T14:15:00+03:00", sizeAmount: 1000, sizeUnit: "ml" });
    expect(file.items[1]).toMatchObject({ sizeAmount: 12, sizeUnit: "unit", updatedAt: "2026-01-05T09:00:00+02:00" });
  });

  test("tags match case-insensitively", () => {
    const doc = "<ROOT><CHAINID>1</CHAINID><ITEMS><ITEM><ITEMCODE>42</ITEMCODE><ITEMNAME>x</ITEMNAME><ITEMPRICE>1.5</ITEMPRICE><BISWEIGHTED>1</BISWEIGHTED></ITEM></ITEMS></ROOT>";
    const { file } = parsePrices(scanXml(doc).root);
    expect(file.chainCode).toBe("1");
    expect(file.items[0]).toMatchObject({ itemCode: "42", name: "x", price: 150, isWeighted: true, sizeAmount: 1000 });
  });

  test("rows without a readable price are skipped and counted", () => {
    const doc = "<Root><Items><Item><ItemCode>1</ItemCode><ItemPrice>abc</ItemPrice></Item><Item><ItemCode>2</ItemCode><ItemPrice>2</ItemPrice></Item></Items></Root>";
    const { file, warnings } = parsePrices(scanXml(doc).root);
    expect(file.items.map((i) => i.itemCode)).toEqual(["2"]);
    expect(warnings).toEqual(["1 price rows without a readable ItemPrice skipped"]);
  });
});
