/**
 * Parses every real published file in ../shared/samples/real/ (skipped when the folder is
 * absent) and checks counts and a few field values per file.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { readPriceFile, type ReadResult } from "../../src/ingest/parse/read-file.ts";
import type { PricesFile, PromosFile, StoresFile } from "../../src/ingest/records.ts";
import { REAL_SAMPLES, realSamplesFor } from "../helpers/real-samples.ts";

const DIR = REAL_SAMPLES;
const present = realSamplesFor("conformance with real published files");

const read = (file: string): ReadResult => readPriceFile(new Uint8Array(readFileSync(join(DIR, file))), file);
const prices = (file: string) => read(file).parsed as PricesFile;
const promos = (file: string) => read(file).parsed as PromosFile;
const stores = (file: string) => read(file).parsed as StoresFile;

describe.skipIf(!present)("conformance with real published files", () => {
  test("every file parses, none partial, with the expected dialect, kind and row count", () => {
    const expected: Record<string, [dialect: string, kind: string, rows: number]> = {
      "PriceFull7290058159628-001-202211021214": ["bina", "prices", 1568],
      "PriceFull7291056200008-299-202211020010": ["cerberus", "prices", 2243],
      "NULLPrice7290058108879-028-202410261441.xml": ["bina", "prices", 238],
      "Price7290725900003-9032-202410021600": ["cerberus", "prices", 0],
      "PromoFull7290058140886-013-202512120010": ["cerberus", "promos", 1],
      "PromoFull7290103152017-010-201506030830.xml": ["cerberus", "promos", 303],
      "PromoFull7290172900007-350-202410030634.xml": ["superpharm", "promos", 0],
      "PromoFull7290058249350-000-038-20260217-000027": ["new", "promos", 0],
      "NULLPromo7290700100008-001-202411021400.xml": ["cerberus", "promos", 0],
      "shufersal-2026-newformat-promofull.TRIMMED-BY-REPO-AUTHOR.xml.gz": ["new", "promos", 2],
      "Stores7290027600007-000-202211020201": ["shufersal-sap", "stores", 405],
      "StoresFull7290172900007--202211020200": ["superpharm", "stores", 281],
      "StoresFull7290696200003-000-202211020600-000.xml": ["matrix", "stores", 65],
      "Stores7290058140886-202211012005.xml": ["cerberus", "stores", 58],
      "Stores7290492000005-202211020200.xml": ["cerberus", "stores", 185],
      "Stores0000072906390-202211021530.xml": ["cerberus", "stores", 10],
    };
    const files = readdirSync(DIR).filter((f) => f !== "SOURCES.md");
    expect(files.sort()).toEqual(Object.keys(expected).sort());
    for (const file of files) {
      const result = read(file);
      const p = result.parsed;
      const rows = p.kind === "prices" ? p.items.length : p.kind === "promos" ? p.promotions.length : p.stores.length;
      expect({ file, dialect: result.dialect as string, kind: p.kind as string, rows, partial: result.partial }).toEqual({
        file,
        dialect: expected[file]![0],
        kind: expected[file]![1],
        rows: expected[file]![2],
        partial: false,
      });
    }
  });

  test("Maayan 2000 PriceFull (Bina, ItemNm, 00000 units → sizes from names)", () => {
    const file = prices("PriceFull7290058159628-001-202211021214");
    expect(file).toMatchObject({ chainCode: "7290058159628", storeCode: "1" });
    expect(file.items[1]).toMatchObject({ itemCode: "6", name: "לחמניה אנג'ל שמיניה/באגט/שומשום 85ג'", price: 360, sizeAmount: 85, sizeUnit: "g", unitQty: null, manufacturer: null, updatedAt: "2022-11-02T10:23:00+02:00" });
    expect(file.items[0]!.price).toBe(200);
  });

  test("Super Cofix PriceFull (Cerberus, QtyInPackage לא ידוע, 180 weighed items)", () => {
    const file = prices("PriceFull7291056200008-299-202211020010");
    expect(file).toMatchObject({ chainCode: "7291056200008", subChainCode: "1", storeCode: "299" });
    expect(file.items[0]).toMatchObject({ itemCode: "7290114311069", price: 590, unitQty: "גרמים", quantity: 200, sizeAmount: 200, sizeUnit: "g", qtyInPackage: null, updatedAt: "2022-02-10T15:38:56+02:00" });
    expect(file.items.find((i) => i.itemCode === "7290000288017")).toMatchObject({ price: 890, sizeAmount: 1000, sizeUnit: "ml" });
    expect(file.items.filter((i) => i.isWeighted)).toHaveLength(180);
  });

  test("King Store NULLPrice (NULL-prefixed yet 238 rows; weighed cheese priced per kg)", () => {
    const result = read("NULLPrice7290058108879-028-202410261441.xml");
    expect(result.name).toMatchObject({ type: "price", isNullPlaceholder: true, storeCode: "28", time: "2024-10-26T14:41:00+03:00" });
    const first = (result.parsed as PricesFile).items[0]!;
    expect(first).toMatchObject({ itemCode: "55350", isWeighted: true, price: 5114, sizeAmount: 1000, sizeUnit: "g", manufactureCountry: "IL2", unitOfMeasure: "100 גרם" });
  });

  test("Yeinot Bitan empty Price (4-digit store, no extension)", () => {
    expect(read("Price7290725900003-9032-202410021600").parsed).toEqual({ kind: "prices", chainCode: "7290725900003", subChainCode: "1", storeCode: "9032", items: [] });
  });

  test("Rami Levy PromoFull (3 for 8.90, all customers)", () => {
    const [p] = promos("PromoFull7290058140886-013-202512120010").promotions;
    expect(p).toMatchObject({ promotionCode: "1353484", minQty: 3, discountedPrice: 890, isClubOnly: false, clubIds: ["0"], endsAt: "2026-01-03T23:59:00+02:00" });
    expect(p!.items).toHaveLength(4);
  });

  test("Osher Ad 2015 PromoFull (ItemId, YYYY/MM/DD, packed item lists)", () => {
    const file = promos("PromoFull7290103152017-010-201506030830.xml");
    expect(file.promotions.reduce((n, p) => n + p.items.length, 0)).toBe(1162);
    expect(file.promotions[0]).toMatchObject({ promotionCode: "11708", minQty: 12, discountedPrice: 1000, startsAt: "2010-05-20T00:00:00+03:00", endsAt: "2020-12-31T23:59:00+02:00" });
    expect(file.promotions[1]!.items.map((i) => i.itemCode)).toEqual(["194134", "194172", "8194266"]);
  });

  test("Shufersal 2026 grouped PromoFull (coupon, ClubID 0 - כלל הלקוחות)", () => {
    const file = promos("shufersal-2026-newformat-promofull.TRIMMED-BY-REPO-AUTHOR.xml.gz");
    expect(file).toMatchObject({ chainCode: "7290027600007", storeCode: "413" });
    expect(file.promotions[0]).toMatchObject({ promotionCode: "2930148", isCoupon: true, isClubOnly: false, minPurchaseAmount: 20000, startsAt: "2021-10-19T00:00:00+03:00" });
    expect(file.promotions[0]!.items.map((i) => i.discountedPrice)).toEqual([4650, 5650, 6150]);
  });

  test("empty promotion files keep their header", () => {
    expect(promos("PromoFull7290058249350-000-038-20260217-000027")).toEqual({ kind: "promos", chainCode: "7290058249350", subChainCode: "0", storeCode: "38", promotions: [] });
    expect(promos("PromoFull7290172900007-350-202410030634.xml")).toMatchObject({ chainCode: "7290172900007", storeCode: "350" });
  });

  test("Shufersal SAP stores (UPPERCASE, 10 sub-chains)", () => {
    const file = stores("Stores7290027600007-000-202211020201");
    expect(new Set(file.stores.map((s) => s.subChainCode)).size).toBe(10);
    expect(file.stores.filter((s) => s.subChainCode === "2")).toHaveLength(104);
    expect(file.stores.find((s) => s.storeCode === "1")).toMatchObject({ name: 'שלי ת"א- בן יהודה', city: "תל אביב", zip: "6343504", subChainName: "שופרסל שלי" });
  });

  test("Super-Pharm stores (OrderXml, declared ISO-8859-8 but UTF-8)", () => {
    const file = stores("StoresFull7290172900007--202211020200");
    expect(file.stores.find((s) => s.storeCode === "4")).toMatchObject({ name: "סופר-פארם משחררים", address: "רח' המשחררים 70", city: "באר-שבע", zip: null });
  });

  test("Victory branches (Matrix, two chain ids)", () => {
    const file = stores("StoresFull7290696200003-000-202211020600-000.xml");
    expect(file.chainCode).toBe("7290696200003");
    expect(file.stores[1]).toMatchObject({ storeCode: "1", name: "גן-יבנה", city: "גן יבנה", zip: "7080000" });
  });

  test("Rami Levy, Dor Alon, Stop Market stores (Cerberus)", () => {
    expect(stores("Stores7290058140886-202211012005.xml").stores.at(-1)).toMatchObject({ storeCode: "203", city: "אילת", zip: "8850713" });
    const dor = stores("Stores7290492000005-202211020200.xml");
    expect(dor.chainName).toBe("Dor Alon");
    expect(dor.stores.find((s) => s.storeCode === "645")?.address).toBe("צומת גולני דרומה-בית ספר כדורי");
    expect(dor.stores.filter((s) => s.storeType === 2)).toHaveLength(7);
    const stop = stores("Stores0000072906390-202211021530.xml");
    expect(stop.chainCode).toBe("72906390");
    expect(read("Stores0000072906390-202211021530.xml").name?.chainCode).toBe("72906390");
  });
});
