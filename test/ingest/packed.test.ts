import { expect, test } from "bun:test";
import { packParsed, unpackParsed } from "../../src/ingest/packed.ts";
import type { PricesFile } from "../../src/ingest/records.ts";
import { item } from "../helpers/price-records.ts";

test("a price list survives packing: nulls, booleans, numbers and odd characters", () => {
  const file: PricesFile = {
    kind: "prices",
    chainCode: "7290058140886",
    subChainCode: null,
    storeCode: "13",
    items: [
      item("7290000066318", 1290, { name: "חלב 3%", manufacturer: "תנובה", sizeAmount: 1000, sizeUnit: "ml", updatedAt: "2026-11-20T08:00:00+02:00", isWeighted: true, qtyInPackage: 1 }),
      item("0042", 5, { itemType: 0, name: "a\u0000b", manufacturer: null, allowDiscount: false, itemStatus: null, quantity: 0.5 }),
    ],
  };
  const packed = packParsed(file);
  expect(packed.kind).toBe("prices-packed");
  const back = unpackParsed(packed) as PricesFile;
  expect(back.items[0]).toEqual(file.items[0]!);
  expect(back.items[1]).toEqual({ ...file.items[1]!, name: "a\uFFFDb" });
  expect(back).toMatchObject({ chainCode: "7290058140886", subChainCode: null, storeCode: "13" });
  expect(unpackParsed(packParsed({ ...file, items: [] }))).toEqual({ ...file, items: [] });
});

test("stores and promotion files pass through unchanged", () => {
  const stores = { kind: "stores" as const, chainCode: "1", chainName: null, stores: [] };
  expect(packParsed(stores)).toBe(stores);
  expect(unpackParsed(stores)).toBe(stores);
});
