import { describe, expect, test } from "bun:test";
import { storesOf } from "../../helpers/ingest/fixtures.ts";

describe("stores", () => {
  test("Cerberus Root/SubChains/SubChain/Stores/Store (UTF-16LE): sub-chain from the enclosing SubChain", () => {
    const file = storesOf("Stores7290058140886-202211012005.xml");
    expect(file).toMatchObject({ kind: "stores", chainCode: "7290058140886", chainName: "רמי לוי שיווק השקמה" });
    expect(file.stores).toEqual([
      { chainCode: "7290058140886", subChainCode: "1", subChainName: "1", storeCode: "1", name: "תלפיות", address: "האומן,15", city: "ירושלים", zip: null, storeType: 1 },
      { chainCode: "7290058140886", subChainCode: "1", subChainName: "1", storeCode: "6", name: "מישור אדומים", address: "איתם 1", city: null, zip: "9813500", storeType: 1 },
      { chainCode: "7290058140886", subChainCode: "2", subChainName: "רמי לוי בשכונה", storeCode: "39", name: "בשכונה מודיעין", address: null, city: "מודיעין", zip: null, storeType: 3 },
    ]);
  });

  test("Bina StoresFull (UTF-16BE without BOM)", () => {
    const file = storesOf("StoresFull7290058108879-000-202211021115");
    expect(file.stores).toEqual([
      { chainCode: "7290058108879", subChainCode: "1", subChainName: "קינג סטור", storeCode: "28", name: "קינג סטור אום אל פחם", address: "כביש 65", city: "אום אל-פחם", zip: "3001000", storeType: 1 },
    ]);
  });

  test("Shufersal SAP asx:abap (UPPERCASE tags)", () => {
    const file = storesOf("Stores7290027600007-000-202211020201");
    expect(file).toMatchObject({ chainCode: "7290027600007", chainName: "שופרסל" });
    expect(file.stores.map((s) => [s.subChainCode, s.subChainName, s.storeCode, s.city, s.zip])).toEqual([
      ["7", "שופרסל אקספרס", "223", "מודיעין", null],
      ["1", "שופרסל שלי", "1", "תל אביב", "6343504"],
    ]);
  });

  test("2026 Shufersal <Chain>: numeric CBS city codes resolved when known", () => {
    const file = storesOf("Stores7290027600007-000-20260701-020000.xml");
    expect(file.stores.map((s) => [s.subChainCode, s.storeCode, s.city, s.zip])).toEqual([
      ["1", "1", "תל אביב-יפו", "6343504"],
      ["1", "2", "חיפה", null],
      ["15", "901", "99999", null],
    ]);
  });

  test("Matrix Store/Branches/Branch: two chain ids, the usual one names the file", () => {
    const file = storesOf("StoresFull7290696200003-000-202211020600-000.xml");
    expect(file.chainCode).toBe("7290696200003");
    expect(file.stores.map((s) => [s.chainCode, s.storeCode, s.city, s.zip, s.storeType])).toEqual([
      ["7290058103393", "87", null, "1510501", 1],
      ["7290696200003", "1", "גן יבנה", "7080000", 1],
      ["7290696200003", "2", "גדרה", null, 3],
    ]);
    expect(file.stores[0]!.address).toBe("צומת צמח מול כנרת");
  });

  test("Super-Pharm OrderXml/Envelope/Header/Details/Line", () => {
    const file = storesOf("StoresFull7290172900007--202211020200");
    expect(file.stores).toEqual([
      { chainCode: "7290172900007", subChainCode: "100", subChainName: null, storeCode: "1", name: "סופר-פארם צמרות", address: "צמרות", city: "הרצליה", zip: null, storeType: 1 },
      { chainCode: "7290172900007", subChainCode: "100", subChainName: null, storeCode: "4", name: "סופר-פארם משחררים", address: "רח' המשחררים 70", city: "באר-שבע", zip: "8454120", storeType: 2 },
    ]);
  });
});
