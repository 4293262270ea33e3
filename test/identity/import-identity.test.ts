import { describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { RAMI_LEVY, SHUFERSAL, VICTORY, at, gtin, item, pricesInput } from "../helpers/price-records.ts";
import { count, freshDb, runInputs } from "../helpers/ingest/session-helpers.ts";
import { genericChanges } from "../../src/modules/prices/history.ts";

// What an import builds for product identity: served names chosen from every chain's, and
// generic products for loose produce (data/produce-groups.json), kept right by later imports.
const CHOC = gtin(7);
const kg = { isWeighted: true, itemType: 0 as const };

const served = (db: Database, code: string) => db.query("SELECT name, manufacturer FROM products WHERE barcode_key = ? AND scope_chain_id = 0").get(code) as { name: string; manufacturer: string | null };
const genericPrices = (db: Database, id: string) =>
  db
    .query(
      `SELECT s.chain_code || ':' || s.store_code AS store, pc.price FROM price_current pc JOIN stores s ON s.id = pc.store_id
        JOIN products p ON p.id = pc.product_id WHERE p.barcode_key = ? AND p.scope_chain_id = -1 ORDER BY store`,
    )
    .all(id) as { store: string; price: number }[];

describe("served names", () => {
  test("never a cut-off prefix of another chain's name; then the most common; manufacturer alike", () => {
    const db = freshDb();
    const full = "שוקולד פרה עלית חלב 4*100 גרם";
    runInputs(db, [
      // Two chains cut the name to 20 characters, one publishes it whole (and first, so "first seen" is not the rule).
      pricesInput("pricefull", VICTORY, "1", at(20), [item(CHOC, 1990, { name: full, manufacturer: "שטראוס" })]),
      pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item(CHOC, 1890, { name: full.slice(0, 20), manufacturer: "שטראוס עלית" })]),
      pricesInput("pricefull", SHUFERSAL, "1", at(20), [item(CHOC, 1990, { name: full.slice(0, 20), manufacturer: "שטראוס עלית" })]),
    ]);
    expect(served(db, CHOC)).toEqual({ name: full, manufacturer: "שטראוס עלית" });
    // A later import where the whole-name chain publishes nothing new keeps the choice.
    runInputs(db, [pricesInput("pricefull", RAMI_LEVY, "1", at(21), [item(CHOC, 1790, { name: full.slice(0, 20), manufacturer: "שטראוס עלית" })])]);
    expect(served(db, CHOC).name).toBe(full);
  });

  test("when every chain selling it now cuts the name, the whole name another chain published still wins (issue 47 part 1)", () => {
    const db = freshDb();
    const whole = "קליק ביסקוויט 75 גרם";
    runInputs(db, [pricesInput("pricefull", VICTORY, "1", at(10), [item(CHOC, 990, { name: whole, manufacturer: "עלית תעשיות" })])]);
    // Victory stops selling it; then Rami Levy, now the only seller, publishes it with the name and manufacturer cut.
    runInputs(db, [pricesInput("pricefull", VICTORY, "1", at(15), [item(gtin(8), 500, { name: "אחר" })])]);
    runInputs(db, [pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item(CHOC, 850, { name: whole.slice(0, 13), manufacturer: "עלית" })])]);
    expect(count(db, "SELECT count(*) AS n FROM chain_products cp JOIN products p ON p.id = cp.product_id WHERE p.barcode_key = '" + CHOC + "'")).toBe(1);
    expect(served(db, CHOC)).toEqual({ name: whole, manufacturer: "עלית תעשיות" });
  });

  test("a longer name last published over 24 months before the newest, by a chain that no longer sells it, is an older name: the sellers' name stands", () => {
    const db = freshDb();
    runInputs(db, [pricesInput("pricefull", VICTORY, "1", "2023-06-01T05:00:00+03:00", [item(CHOC, 990, { name: "קליק ביסקוויט 80 גרם" })])]);
    runInputs(db, [pricesInput("pricefull", VICTORY, "1", "2023-06-02T05:00:00+03:00", [item(gtin(8), 500, { name: "אחר" })])]);
    runInputs(db, [pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item(CHOC, 890, { name: "קליק ביסקוויט" })])]);
    expect(served(db, CHOC).name).toBe("קליק ביסקוויט");
    // Within the window the same longer name would win.
    const recent = freshDb();
    runInputs(recent, [pricesInput("pricefull", VICTORY, "1", "2025-06-01T05:00:00+03:00", [item(CHOC, 990, { name: "קליק ביסקוויט 80 גרם" })])]);
    runInputs(recent, [pricesInput("pricefull", VICTORY, "1", "2025-06-02T05:00:00+03:00", [item(gtin(8), 500, { name: "אחר" })])]);
    runInputs(recent, [pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item(CHOC, 890, { name: "קליק ביסקוויט" })])]);
    expect(served(recent, CHOC).name).toBe("קליק ביסקוויט 80 גרם");
  });

  test("the same names in another order choose the same name", () => {
    const names = ["במבה 80 גרם", "במבה אסם 80 גרם", "במבה 80 גרם"];
    const pick = (order: string[]) => {
      const db = freshDb();
      runInputs(db, order.map((n, i) => pricesInput("pricefull", [VICTORY, RAMI_LEVY, SHUFERSAL][i]!, "1", at(20), [item(CHOC, 500, { name: n })])));
      return served(db, CHOC).name;
    };
    expect(pick(names)).toBe("במבה 80 גרם");
    expect(pick([...names].reverse())).toBe("במבה 80 גרם");
  });
});

describe("generic products", () => {
  function produceDay(db: Database, day: number, prices: { rami: number; shufersal: [number, number]; victory: number }) {
    return runInputs(db, [
      pricesInput("pricefull", RAMI_LEVY, "1", at(day), [item("4087", prices.rami, { ...kg, name: "עגבניה" }), item("4796", 1290, { ...kg, name: "עגבניות שרי" })]),
      // Shufersal sells two tomato items in one store: the store is priced at the lower.
      pricesInput("pricefull", SHUFERSAL, "1", at(day), [
        item("12", prices.shufersal[0], { ...kg, name: "עגבניות במשקל" }),
        item("13", prices.shufersal[1], { ...kg, name: "עגבנייה טרייה" }),
        item("14", 1490, { ...kg, name: "עגבניות שרי במשקל" }),
      ]),
      // Victory: a GTIN sold by weight joins too; an item sold per pack does not.
      pricesInput("pricefull", VICTORY, "1", at(day), [
        item("7290000090030", prices.victory, { isWeighted: true, name: 'עגבניות לק"ג' }),
        item("555", 990, { itemType: 0, isWeighted: false, name: "עגבניות" }),
      ]),
    ]);
  }

  test("items of several chains under their own codes become one generic product, priced per store at the lowest", () => {
    const db = freshDb();
    produceDay(db, 20, { rami: 590, shufersal: [690, 650], victory: 790 });
    const tomatoes = db.query("SELECT name, size_amount, size_unit, is_weighted, category FROM products WHERE barcode_key = 'g-tomatoes'").get();
    expect(tomatoes).toEqual({ name: "עגבניות", size_amount: 1000, size_unit: "g", is_weighted: 1, category: "produce" });
    expect(genericPrices(db, "g-tomatoes")).toEqual([
      { store: `${SHUFERSAL}:1`, price: 650 },
      { store: `${RAMI_LEVY}:1`, price: 590 },
      { store: `${VICTORY}:1`, price: 790 },
    ]);
    // Cherry tomatoes are their own group; the per-pack item stays alone.
    expect(genericPrices(db, "g-cherry-tomatoes").map((r) => r.price)).toEqual([1490, 1290]);
    const members = db.query("SELECT p.name FROM generic_members gm JOIN products p ON p.id = gm.product_id JOIN products g ON g.id = gm.generic_id WHERE g.barcode_key = 'g-tomatoes' ORDER BY p.name").all();
    expect(members.map((m: any) => m.name).sort()).toEqual(["עגבניה", "עגבנייה טרייה", "עגבניות במשקל", 'עגבניות לק"ג'].sort());
    expect(count(db, "SELECT count(*) AS n FROM chain_products cp JOIN products p ON p.id = cp.product_id WHERE p.barcode_key = 'g-tomatoes'")).toBe(3);
  });

  test("a later import re-derives the prices; a complete PriceFull never removes the generic rows", () => {
    const db = freshDb();
    produceDay(db, 20, { rami: 590, shufersal: [690, 650], victory: 790 });
    produceDay(db, 21, { rami: 620, shufersal: [600, 650], victory: 790 });
    expect(genericPrices(db, "g-tomatoes").map((r) => r.price)).toEqual([600, 620, 790]); // Shufersal, Rami Levy, Victory
    // No history rows of its own (folded from the members when asked), none written as "no longer sold".
    expect(count(db, "SELECT count(*) AS n FROM price_history ph JOIN products p ON p.id = ph.product_id WHERE p.scope_chain_id = -1")).toBe(0);
  });

  test("a group sold by one chain only is no generic product (nothing to compare), and goes when the second chain stops", () => {
    const db = freshDb();
    runInputs(db, [
      pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item("4011", 790, { ...kg, name: "בננות" })]),
      pricesInput("pricefull", SHUFERSAL, "1", at(20), [item("4011", 890, { ...kg, name: "בננה" })]),
    ]);
    expect(count(db, "SELECT count(*) AS n FROM products WHERE barcode_key = 'g-bananas'")).toBe(1);
    runInputs(db, [pricesInput("pricefull", SHUFERSAL, "1", at(21), [item("99", 100, { ...kg, name: "גזר" })])]);
    expect(count(db, "SELECT count(*) AS n FROM products WHERE barcode_key = 'g-bananas'")).toBe(0);
    expect(count(db, "SELECT count(*) AS n FROM chain_products cp WHERE cp.barcode = 'g-bananas'")).toBe(0);
  });

  test("history folds the members' rows per store: the lowest item, a row when that changes", () => {
    expect(
      genericChanges([
        [1, 7, "2026-01-01", 590],
        [2, 7, "2026-01-01", 650],
        [2, 7, "2026-01-05", 550],
        [1, 7, "2026-02-01", null],
        [2, 7, "2026-02-01", 550],
        [2, 8, "2026-01-01", 700],
        [2, 8, "2026-03-01", null],
      ]),
    ).toEqual([
      [7, "2026-01-01", 590],
      [7, "2026-01-05", 550],
      [8, "2026-01-01", 700],
      [8, "2026-03-01", null],
    ]);
  });
});
