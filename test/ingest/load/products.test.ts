import { describe, expect, test } from "bun:test";
import { cacheKey, ProductCache } from "../../../src/ingest/load/products.ts";
import { recordRows } from "../../../src/ingest/load/price-rows.ts";
import { item } from "../../helpers/price-records.ts";
import { freshDb } from "../../helpers/ingest/session-helpers.ts";

describe("ProductCache keys", () => {
  test("neighbouring internal codes of a chain with a large id stay two products", () => {
    const db = freshDb();
    const cache = new ProductCache(db, null);
    const rows = recordRows([item("4020", 100, { itemType: 0, name: "עגבניה" }), item("4021", 200, { itemType: 0, name: "מלפפון" })]);
    const time = "2026-11-22T05:00:00+02:00";
    const ids = [0, 1].map((i) => cache.upsert(rows, i, 100, time, Date.parse(time)));
    expect(ids[0]).not.toBe(ids[1]);
    expect(db.query("SELECT scope_chain_id, barcode_key, name FROM products ORDER BY barcode_key").all()).toEqual([
      { scope_chain_id: 100, barcode_key: "4020", name: "עגבניה" },
      { scope_chain_id: 100, barcode_key: "4021", name: "מלפפון" },
    ]);
  });

  test("numeric keys are exact up to the largest numeric scope, strings past it", () => {
    const max = 99_999_999_999_999; // 14 digits
    expect(cacheKey(89, max, () => String(max))).not.toBe(cacheKey(89, max - 1, () => String(max - 1)));
    expect(cacheKey(89, 1, () => "1")).toBe(8_900_000_000_000_001);
    expect(cacheKey(90, 4021, () => "4021")).toBe("90:4021");
    expect(cacheKey(0, Number.NaN, () => "ABC1")).toBe("0:ABC1");
  });
});
