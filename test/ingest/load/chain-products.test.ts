import { describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { refreshChainProducts } from "../../../src/db/chain-products.ts";
import { rebuildChainProducts, refreshChainProductsFor } from "../../../src/ingest/load/chain-products.ts";
import { RAMI_LEVY, SHUFERSAL, at, gtin, item, pricesInput, store, storesInput } from "../../helpers/price-records.ts";
import { freshDb, runInputs } from "../../helpers/ingest/session-helpers.ts";
import type { StoreRows } from "../../../src/ingest/load/store-rows.ts";

const all = (db: Database) => db.query("SELECT * FROM chain_products ORDER BY chain_id, barcode, product_id").all();

/** Two chains, Eilat and other stores, ties and single-store products, pseudo-random prices. */
function dataset(): Database {
  const db = freshDb();
  const inputs = [
    storesInput(RAMI_LEVY, at(20, 1), [store(RAMI_LEVY, "1"), store(RAMI_LEVY, "2", { city: "אילת" }), store(RAMI_LEVY, "3")]),
    storesInput(SHUFERSAL, at(20, 1), [store(SHUFERSAL, "1", { city: "אילת" }), store(SHUFERSAL, "2")]),
  ];
  let seed = 7;
  const next = () => (seed = (seed * 48271) % 2147483647);
  for (const [chain, stores] of [[RAMI_LEVY, ["1", "2", "3"]], [SHUFERSAL, ["1", "2"]]] as const) {
    for (const s of stores) {
      const items = [];
      for (let p = 1; p <= 40; p++) if (next() % 4 !== 0) items.push(item(gtin(p), 100 + (next() % 3) * 10));
      items.push(item("55", 300 + (next() % 2), { itemType: 0 }));
      inputs.push(pricesInput("pricefull", chain, s, at(20, 3), items));
    }
  }
  runInputs(db, inputs);
  return db;
}

describe("chain_products", () => {
  test("the one-pass rebuild gives the same rows as the SQL refresh", () => {
    const db = dataset();
    const ours = all(db);
    expect(ours.length).toBeGreaterThan(40);
    refreshChainProducts(db);
    expect(all(db)).toEqual(ours);
    expect(rebuildChainProducts(db)).toBe(ours.length);
    expect(all(db)).toEqual(ours);
  });

  test("the rebuild from the rows held in memory gives the same rows as from the table", () => {
    const db = dataset();
    refreshChainProducts(db);
    const expected = all(db);
    const held = new Map<number, StoreRows>();
    for (const [store, product, price, allow] of db.query("SELECT store_id, product_id, price, allow_discount FROM price_current ORDER BY store_id, product_id").values() as number[][]) {
      if (!held.has(store!)) held.set(store!, { ids: [], prices: [], allows: [] });
      held.get(store!)!.ids.push(product!);
      held.get(store!)!.prices.push(price!);
      held.get(store!)!.allows.push(allow!);
    }
    db.run("DELETE FROM chain_products");
    expect(rebuildChainProducts(db, held)).toBe(expected.length);
    expect(all(db)).toEqual(expected);
    // The figures come from the held rows, not the table.
    const [first] = held.values();
    first!.prices[0] = 99_999;
    rebuildChainProducts(db, held);
    expect(all(db)).not.toEqual(expected);
    // A held row that does not fit the packed key: read from the table instead, same rows.
    first!.prices[0] = -5;
    expect(rebuildChainProducts(db, held)).toBe(expected.length);
    expect(all(db)).toEqual(expected);
  });

  test("the per-product refresh gives the same rows", () => {
    const db = dataset();
    const expected = all(db);
    const ids = (db.query("SELECT id FROM products").values() as [number][]).map((r) => r[0]);
    db.run("UPDATE chain_products SET price_mode = -1");
    db.run("DELETE FROM chain_products WHERE product_id % 3 = 0");
    refreshChainProductsFor(db, ids);
    expect(all(db)).toEqual(expected);
  });

  test("Eilat is left out of every chain figure unless the chain sells the product only there (as in /prices/)", () => {
    const db = freshDb();
    runInputs(db, [
      storesInput(RAMI_LEVY, at(20, 1), [store(RAMI_LEVY, "1", { city: "אילת" }), store(RAMI_LEVY, "2", { city: "אילת" }), store(RAMI_LEVY, "3")]),
      pricesInput("pricefull", RAMI_LEVY, "1", at(20, 3), [item(gtin(1), 90), item(gtin(2), 80)]),
      pricesInput("pricefull", RAMI_LEVY, "2", at(20, 3), [item(gtin(1), 90), item(gtin(2), 70)]),
      pricesInput("pricefull", RAMI_LEVY, "3", at(20, 3), [item(gtin(1), 100)]),
    ]);
    expect(db.query("SELECT barcode, store_count, price_min, price_max, price_mode FROM chain_products ORDER BY barcode").all()).toEqual([
      // Two Eilat stores at 90 and one store elsewhere at 100: the figures are the one store's.
      { barcode: gtin(1), store_count: 1, price_min: 100, price_max: 100, price_mode: 100 },
      // Sold only in Eilat: the Eilat stores count.
      { barcode: gtin(2), store_count: 2, price_min: 70, price_max: 80, price_mode: 70 },
    ]);
    refreshChainProducts(db);
    expect(db.query("SELECT barcode, store_count, price_min, price_max, price_mode FROM chain_products ORDER BY barcode").all()).toEqual([
      { barcode: gtin(1), store_count: 1, price_min: 100, price_max: 100, price_mode: 100 },
      { barcode: gtin(2), store_count: 2, price_min: 70, price_max: 80, price_mode: 70 },
    ]);
  });

  test("a small import refreshes only what it touched, and removed products disappear", () => {
    const db = freshDb();
    const base = [];
    for (let s = 1; s <= 3; s++) base.push(pricesInput("pricefull", RAMI_LEVY, String(s), at(20), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((p) => item(gtin(p), 100 + s))));
    runInputs(db, base);
    runInputs(db, [pricesInput("price", RAMI_LEVY, "1", at(21), [item(gtin(1), 500)])]);
    runInputs(db, [1, 2, 3].map((s) => pricesInput("pricefull", RAMI_LEVY, String(s), at(22), [2, 3, 4, 5, 6, 7, 8, 9, 10].map((p) => item(gtin(p), 100 + s)))));
    const ours = all(db);
    refreshChainProducts(db);
    expect(all(db)).toEqual(ours);
    expect(ours.some((r: any) => r.barcode === gtin(1))).toBe(false);
  });
});
