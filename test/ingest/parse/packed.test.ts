import { expect, test } from "bun:test";
import { packedFacts, packParsed, PricePacker, transferablesOf, unpackParsed } from "../../../src/ingest/parse/packed.ts";
import { productHash, productSource, recordRows, type PriceList } from "../../../src/ingest/load/price-rows.ts";

/** productHash of a price record's product fields. */
const recordHash = (record: Parameters<typeof productSource>[0]) => {
  const source = productSource(record);
  return productHash({ ...source, isWeighted: source.isWeighted ? 1 : 0 });
};
import type { PricesFile } from "../../../src/ingest/records.ts";
import { gtin, item } from "../../helpers/price-records.ts";

const file: PricesFile = {
  kind: "prices",
  chainCode: "7290058140886",
  subChainCode: null,
  storeCode: "13",
  items: [
    item("0" + gtin(5), 1290, { name: "חלב 3%", manufacturer: "תנובה", sizeAmount: 1000, sizeUnit: "ml", updatedAt: "2026-11-20T08:00:00+02:00", isWeighted: true, qtyInPackage: 1 }),
    item("0042", 5, { itemType: 0, name: "a\u0000b", manufacturer: null, allowDiscount: false, itemStatus: null, quantity: 0.5, updatedAt: "2026-11-20T08:00:00+02:00" }),
    item("2000123000008", 70, { name: "", description: "עגבניה", updatedAt: null }),
  ],
};

test("a packed price list (a separator inside a value included) reads back the same records and derived values as in-thread rows", () => {
  const packed = packParsed(file);
  expect(packed.kind).toBe("prices-packed");
  expect(transferablesOf(packed)).toHaveLength(2);
  const list = unpackParsed(packed) as PriceList;
  expect(list).toMatchObject({ kind: "price-rows", chainCode: "7290058140886", subChainCode: null, storeCode: "13" });
  const direct = recordRows(file.items);
  expect(list.rows.count).toBe(3);
  for (let i = 0; i < 3; i++) {
    const expected = file.items[i]!;
    expect(list.rows.product(i)).toEqual(productSource(expected));
    expect(list.rows.product(i)).toEqual(direct.product(i));
    expect(list.rows.key(i)).toBe(direct.key(i));
    expect(list.rows.keyNumber(i)).toBe(direct.keyNumber(i));
    expect(list.rows.shared(i)).toBe(direct.shared(i));
    expect(list.rows.price(i)).toBe(direct.price(i));
    expect(list.rows.allowDiscount(i)).toBe(direct.allowDiscount(i));
    expect(list.rows.updatedAt(i)).toBe(direct.updatedAt(i));
    expect(list.rows.productHash(i)).toBe(recordHash(expected));
    expect(direct.productHash(i)).toBeNaN();
  }
  expect([list.rows.shared(0), list.rows.shared(1), list.rows.shared(2)]).toEqual([true, false, false]);
  expect(list.rows.keyNumber(0)).toBe(Number(gtin(5)));
  // An empty name falls back to the description.
  expect(list.rows.product(2).name).toBe("עגבניה");
});

test("empty lists, stores and promotion files", () => {
  const empty = unpackParsed(packParsed({ ...file, items: [] })) as PriceList;
  expect(empty.rows.count).toBe(0);
  const stores = { kind: "stores" as const, chainCode: "1", chainName: null, stores: [] };
  expect(packParsed(stores)).toBe(stores);
  expect(unpackParsed(stores)).toBe(stores);
});

test("the description hash changes with any descriptive field and ignores the price", () => {
  const base = item(gtin(1), 100, { name: "x", manufacturer: "m", sizeAmount: 1, sizeUnit: "g" });
  expect(recordHash({ ...base, price: 200, updatedAt: "t" })).toBe(recordHash(base));
  for (const change of [{ name: "y" }, { manufacturer: null }, { sizeAmount: 2 }, { sizeUnit: "ml" as const }, { isWeighted: true }, { unitQty: "גרם" }, { manufactureCountry: "IL" }, { qtyInPackage: 3 }]) {
    expect(recordHash({ ...base, ...change })).not.toBe(recordHash(base));
  }
  expect(Number.isSafeInteger(recordHash(base))).toBe(true);
});

test("the packed arrays grow past a low estimate and a high one leaves no trace: the same rows either way", () => {
  const items = Array.from({ length: 50 }, (_, k) => item(gtin(k + 1), 100 + k, { name: `item ${k}`, manufacturer: k % 3 ? "m" : null, updatedAt: k % 2 ? "2026-11-20T08:00:00+02:00" : null }));
  const packedWith = (expectedRows: number) => {
    const packer = new PricePacker(expectedRows);
    for (const it of items) packer.add(it, packedFacts(it), it.price, it.allowDiscount, it.updatedAt);
    return unpackParsed(packer.finish(file)) as PriceList;
  };
  const rowsOf = (list: PriceList) =>
    Array.from({ length: list.rows.count }, (_, i) => [list.rows.product(i), list.rows.price(i), list.rows.updatedAt(i), list.rows.productHash(i), list.rows.key(i)]);
  const expected = rowsOf(unpackParsed(packParsed({ ...file, items })) as PriceList);
  expect(expected).toHaveLength(50);
  for (const estimate of [0, 1, 17, 50, 1000]) expect(rowsOf(packedWith(estimate))).toEqual(expected);
});
