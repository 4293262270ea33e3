import { describe, expect, test } from "bun:test";
import { packParsed, unpackParsed } from "../../../src/ingest/parse/packed.ts";
import type { PriceList } from "../../../src/ingest/load/price-rows.ts";
import { radixOrder } from "../../../src/ingest/load/prices.ts";
import type { PricesFile } from "../../../src/ingest/records.ts";
import { RAMI_LEVY, SHUFERSAL, at, gtin, item, pricesInput } from "../../helpers/price-records.ts";
import { count, freshDb, history, runInputs, storePrices } from "../../helpers/ingest/session-helpers.ts";

const A = gtin(1), B = gtin(2), C = gtin(3);

describe("PriceFull and Price", () => {
  test("a PriceFull replaces the store's list: absent items are removed and get a NULL history row", () => {
    const db = freshDb();
    runInputs(db, [pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item(A, 500), item(B, 700), item(C, 900)])]);
    const { outcomes } = runInputs(db, [pricesInput("pricefull", RAMI_LEVY, "1", at(21), [item(A, 500), item(B, 750)])]);
    expect(outcomes[0]!.status).toBe("ok");
    expect(outcomes[0]!.counts).toMatchObject({ rows: 2, inserted: 0, changed: 1, unchanged: 1, removed: 1 });
    expect(storePrices(db, RAMI_LEVY, "1")).toEqual({ [A]: 500, [B]: 750 });
    expect(history(db, RAMI_LEVY, "1", C)).toEqual([[at(20), 900], [at(21), null]]);
  });

  test("a Price file updates only the rows it lists", () => {
    const db = freshDb();
    runInputs(db, [
      pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item(A, 500), item(B, 700)]),
      pricesInput("price", RAMI_LEVY, "1", at(20, 11), [item(B, 650), item(C, 300)]),
    ]);
    expect(storePrices(db, RAMI_LEVY, "1")).toEqual({ [A]: 500, [B]: 650, [C]: 300 });
    expect(history(db, RAMI_LEVY, "1", B)).toEqual([[at(20), 700], [at(20, 11), 650]]);
  });

  test("history gets a row only when the price changes", () => {
    const db = freshDb();
    for (const [day, price] of [[20, 500], [21, 500], [22, 520], [23, 520], [24, 500]] as const) {
      runInputs(db, [pricesInput("pricefull", RAMI_LEVY, "1", at(day), [item(A, price)])]);
    }
    expect(history(db, RAMI_LEVY, "1", A)).toEqual([[at(20), 500], [at(22), 520], [at(24), 500]]);
  });

  test("an item back after removal gets a new history row", () => {
    const db = freshDb();
    runInputs(db, [pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item(A, 500), item(B, 1)])]);
    runInputs(db, [pricesInput("pricefull", RAMI_LEVY, "1", at(21), [item(B, 1)])]);
    runInputs(db, [pricesInput("pricefull", RAMI_LEVY, "1", at(22), [item(A, 500), item(B, 1)])]);
    expect(history(db, RAMI_LEVY, "1", A)).toEqual([[at(20), 500], [at(21), null], [at(22), 500]]);
  });

  test("an unchanged price keeps the time it took effect; an AllowDiscount change is written; no history", () => {
    const db = freshDb();
    runInputs(db, [pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item(A, 500, { updatedAt: at(19) })])]);
    runInputs(db, [pricesInput("pricefull", RAMI_LEVY, "1", at(21), [item(A, 500, { updatedAt: at(20, 22), allowDiscount: false })])]);
    expect(db.query("SELECT updated_at, allow_discount FROM price_current").get()).toEqual({ updated_at: at(19), allow_discount: 0 });
    runInputs(db, [pricesInput("pricefull", RAMI_LEVY, "1", at(22), [item(A, 520, { updatedAt: null })])]);
    expect(db.query("SELECT price, updated_at FROM price_current").get()).toEqual({ price: 520, updated_at: at(22) });
    expect(history(db, RAMI_LEVY, "1", A)).toEqual([[at(20), 500], [at(22), 520]]);
  });

  test("a truncated PriceFull updates prices but removes nothing", () => {
    const db = freshDb();
    runInputs(db, [pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item(A, 500), item(B, 700), item(C, 900)])]);
    const { outcomes } = runInputs(db, [pricesInput("pricefull", RAMI_LEVY, "1", at(21), [item(A, 550)], { partial: true })]);
    expect(outcomes[0]!.status).toBe("partial");
    expect(outcomes[0]!.reason).toContain("nothing removed");
    expect(storePrices(db, RAMI_LEVY, "1")).toEqual({ [A]: 550, [B]: 700, [C]: 900 });
  });

  test("an empty PriceFull keeps the store's list; a NULL-prefixed one never removes", () => {
    const db = freshDb();
    runInputs(db, [pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item(A, 500), item(B, 700)])]);
    const empty = runInputs(db, [pricesInput("pricefull", RAMI_LEVY, "1", at(21), [])]);
    expect(empty.outcomes[0]!.status).toBe("ok");
    expect(empty.outcomes[0]!.reason).toContain("previous list is kept");
    const placeholder = pricesInput("pricefull", RAMI_LEVY, "1", at(22), [item(A, 510)]);
    placeholder.name!.isNullPlaceholder = true;
    runInputs(db, [placeholder]);
    expect(storePrices(db, RAMI_LEVY, "1")).toEqual({ [A]: 510, [B]: 700 });
  });

  test("a file older than the prices already loaded for the store is skipped", () => {
    const db = freshDb();
    runInputs(db, [pricesInput("pricefull", RAMI_LEVY, "1", at(21), [item(A, 500)])]);
    const { outcomes } = runInputs(db, [
      pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item(A, 400), item(B, 1)]),
      pricesInput("price", RAMI_LEVY, "2", at(20), [item(A, 450)]),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["skipped", "ok"]);
    expect(outcomes[0]!.reason).toContain("older than the prices already loaded");
    expect(storePrices(db, RAMI_LEVY, "1")).toEqual({ [A]: 500 });
  });

  test("a price file of an unknown store creates a minimal store row with its prices_at", () => {
    const db = freshDb();
    runInputs(db, [pricesInput("pricefull", RAMI_LEVY, "0042", at(20), [item(A, 500)])]);
    expect(db.query("SELECT chain_code, store_code, name, prices_at FROM stores").all()).toEqual([
      { chain_code: RAMI_LEVY, store_code: "42", name: null, prices_at: at(20) },
    ]);
  });
});

describe("a store's files in one run", () => {
  // Within a run a store's rows after each file are kept in memory for its next file: the result
  // must be what loading each file in a run of its own (reading the table) gives.
  test("full, deltas, a full that removes, an AllowDiscount change, a cut full and a big delta: the same as one run per file", () => {
    const D = gtin(4), E = gtin(5);
    const big = Array.from({ length: 250 }, (_, k) => item(gtin(100 + k), 1000 + k));
    const inputs = [
      pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item(A, 500), item(B, 700), item(C, 900)]),
      pricesInput("price", RAMI_LEVY, "1", at(20, 9), [item(B, 650), item(D, 300)]),
      pricesInput("pricefull", RAMI_LEVY, "2", at(20, 10), [item(A, 510)]),
      pricesInput("price", RAMI_LEVY, "1", at(20, 11), [item(B, 650, { allowDiscount: false }), item(A, 480)]),
      pricesInput("pricefull", RAMI_LEVY, "1", at(21), [item(A, 480), item(C, 950), item(E, 120)]),
      pricesInput("pricefull", RAMI_LEVY, "1", at(21, 8), [item(A, 470)], { partial: true }),
      pricesInput("price", RAMI_LEVY, "1", at(21, 9), big),
      pricesInput("price", RAMI_LEVY, "1", at(21, 10), [item(B, 99), ...big.slice(0, 3).map((row) => ({ ...row, price: row.price + 1 }))]),
      pricesInput("pricefull", RAMI_LEVY, "1", at(22), [item(C, 950), ...big.slice(10, 20)]),
      pricesInput("price", RAMI_LEVY, "2", at(22, 9), [item(A, 520), item(E, 130)]),
    ];
    const dump = (db: ReturnType<typeof freshDb>) => [
      db.query("SELECT store_id, product_id, price, updated_at, allow_discount FROM price_current ORDER BY store_id, product_id").values(),
      db.query("SELECT product_id, store_id, valid_from, price FROM price_history ORDER BY product_id, store_id, valid_from").values(),
    ];
    const together = freshDb();
    const { outcomes } = runInputs(together, inputs);
    const apart = freshDb();
    const one = inputs.map((input) => runInputs(apart, [input]).outcomes[0]!);
    expect(outcomes.map((o) => o.counts)).toEqual(one.map((o) => o.counts));
    expect(dump(together)).toEqual(dump(apart));
    expect(storePrices(together, RAMI_LEVY, "1")[B]).toBeUndefined();
    expect(count(together, "SELECT count(*) AS n FROM price_current")).toBe(11 + 2);
  });
});

describe("products", () => {
  test("leading zeros are not significant: one product for 0-padded and plain barcodes", () => {
    const db = freshDb();
    runInputs(db, [
      pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item("0000" + A, 500)]),
      pricesInput("pricefull", SHUFERSAL, "7", at(20), [item(A, 520)]),
    ]);
    expect(db.query("SELECT scope_chain_id, barcode, barcode_key FROM products").all()).toEqual([
      { scope_chain_id: 0, barcode: "0000" + A, barcode_key: A },
    ]);
  });

  test("chain-internal codes are never merged across chains", () => {
    const db = freshDb();
    runInputs(db, [
      pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item("4021", 990, { itemType: 0, name: "עגבניה" })]),
      pricesInput("pricefull", SHUFERSAL, "7", at(20), [item("4021", 1290, { itemType: 0, name: "מלפפון" })]),
      pricesInput("pricefull", SHUFERSAL, "8", at(20), [item("04021", 1190, { itemType: 0, name: "מלפפון" })]),
    ]);
    const rows = db.query("SELECT c.slug, p.barcode_key, p.name FROM products p JOIN chains c ON c.id = p.scope_chain_id ORDER BY c.slug").all();
    expect(rows).toEqual([
      { slug: "rami-levy", barcode_key: "4021", name: "עגבניה" },
      { slug: "shufersal", barcode_key: "4021", name: "מלפפון" },
    ]);
  });

  // Names and manufacturers are chosen from every chain's newest (src/identity/names.ts, issue 18);
  // sizes come from the latest file; updated_at is the file time of the stored size values.
  test("name and manufacturer chosen from the chains', size from the latest file; missing values keep known ones", () => {
    const db = freshDb();
    runInputs(db, [
      pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item(A, 500, { name: "חלב 3%", manufacturer: "תנובה", sizeAmount: 1000, sizeUnit: "ml" })]),
      pricesInput("pricefull", SHUFERSAL, "7", at(21), [item(A, 520, { name: "חלב תנובה 3% 1 ליטר", manufacturer: null })]),
      // An older file loaded later does not win.
      pricesInput("pricefull", SHUFERSAL, "8", at(19), [item(A, 510, { name: "ישן" })]),
    ]);
    expect(db.query("SELECT name, manufacturer, size_amount, size_unit, updated_at FROM products").get()).toEqual({
      name: "חלב תנובה 3% 1 ליטר",
      manufacturer: "תנובה",
      size_amount: 1000,
      size_unit: "ml",
      updated_at: at(20),
    });
  });

  test("a description that changed nothing is remembered, and a later real change still applies", () => {
    const db = freshDb();
    runInputs(db, [
      pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item(A, 500, { name: "במבה", manufacturer: "אסם" })]),
      pricesInput("pricefull", RAMI_LEVY, "2", at(21), [item(A, 500, { name: "במבה", manufacturer: null })]),
      pricesInput("pricefull", RAMI_LEVY, "3", at(22), [item(A, 500, { name: "במבה", manufacturer: null })]),
      pricesInput("pricefull", RAMI_LEVY, "4", at(23), [item(A, 500, { name: "במבה 80 גרם", manufacturer: null })]),
    ]);
    // The chain's newest name is served; its later files without a manufacturer keep the one it gave.
    expect(db.query("SELECT name, manufacturer FROM products").get()).toEqual({ name: "במבה 80 גרם", manufacturer: "אסם" });
  });

  test("a classifier fills the category", () => {
    const db = freshDb();
    runInputs(db, [pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item(A, 500, { name: "חלב 3%" })])], {
      classify: (name) => (name.includes("חלב") ? "dairy" : null),
    });
    expect(db.query("SELECT category FROM products").get()).toEqual({ category: "dairy" });
  });

  test("repeated items in one file: at equal update times the last one counts", () => {
    const db = freshDb();
    const { outcomes } = runInputs(db, [pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item(A, 500), item(A, 450)])]);
    expect(outcomes[0]!.warnings.join()).toContain("1 repeated items, 1 of them with different prices");
    expect(outcomes[0]!.counts).toMatchObject({ duplicates: 1, conflicting: 1 });
    expect(storePrices(db, RAMI_LEVY, "1")).toEqual({ [A]: 450 });
    expect(count(db, "SELECT count(*) AS n FROM price_history")).toBe(1);
  });

  test("repeated items in one file: the row updated last counts — price, history and name alike, in a full and a delta file", () => {
    const db = freshDb();
    const rows = [
      item(A, 3090, { name: "פילה אמנון", updatedAt: at(9, 8) }),
      item(A, 2990, { name: "פילה אמנון ישן", updatedAt: at(1, 8) }),
      item(B, 700),
      item(B, 700),
    ];
    const { outcomes } = runInputs(db, [pricesInput("pricefull", RAMI_LEVY, "1", at(20), rows)]);
    expect(outcomes[0]!.counts).toMatchObject({ duplicates: 2, conflicting: 1 });
    expect(storePrices(db, RAMI_LEVY, "1")).toEqual({ [A]: 3090, [B]: 700 });
    expect(db.query("SELECT name FROM products WHERE barcode_key = ?").get(A)).toEqual({ name: "פילה אמנון" });
    // A delta file (few rows: the point-lookup path) follows the same rule.
    runInputs(db, [pricesInput("price", RAMI_LEVY, "1", at(21), [item(A, 2800, { updatedAt: at(21, 4) }), item(A, 2500, { updatedAt: at(21, 3) })])]);
    expect(storePrices(db, RAMI_LEVY, "1")).toEqual({ [A]: 2800, [B]: 700 });
    // The same file packed by a parse worker: the same rule.
    const packedDb = freshDb();
    const input = pricesInput("pricefull", RAMI_LEVY, "1", at(20), rows);
    runInputs(packedDb, [{ ...input, parsed: unpackParsed(packParsed(input.parsed as PricesFile)) as PriceList }]);
    expect(storePrices(packedDb, RAMI_LEVY, "1")).toEqual({ [A]: 3090, [B]: 700 });
    expect(packedDb.query("SELECT name FROM products WHERE barcode_key = ?").get(A)).toEqual({ name: "פילה אמנון" });
  });
});

describe("radixOrder (a file's rows by product id)", () => {
  /** The order a comparator sort gives: by id, then by row. */
  const sorted = (ids: number[]) => ids.map((_, i) => i).sort((a, b) => ids[a]! - ids[b]! || a - b);

  test("ids of every size up to 2³² − 1 (one to three passes), repeated ids kept in file order", () => {
    let seed = 7;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    for (const span of [1, 5, 2048, 40_000, 2 ** 22 + 3, 2 ** 31 + 9, 2 ** 32 - 1]) {
      const ids = Array.from({ length: 3000 }, () => next() % span);
      ids.push(span - 1, 0, span - 1);
      expect(Array.from(radixOrder(Float64Array.from(ids), ids.length)!)).toEqual(sorted(ids));
    }
    expect(Array.from(radixOrder(new Float64Array([7, 3, 7, 1]), 4)!)).toEqual([3, 1, 0, 2]);
    expect(Array.from(radixOrder(new Float64Array(0), 0)!)).toEqual([]);
  });

  test("an id that is not an integer below 2³² is left to the comparator sort (null)", () => {
    expect(radixOrder(new Float64Array([1, 2 ** 32]), 2)).toBeNull();
    expect(radixOrder(new Float64Array([1.5]), 1)).toBeNull();
    expect(radixOrder(new Float64Array([-1]), 1)).toBeNull();
  });
});
