import { describe, expect, test } from "bun:test";
import { reclassifyIfTableChanged } from "../../../src/ingest/load/reclassify.ts";
import { CATEGORIES_VERSION, classify } from "../../../src/search/categories.ts";
import { RAMI_LEVY, at, gtin, item, pricesInput } from "../../helpers/price-records.ts";
import { freshDb, runInputs } from "../../helpers/ingest/session-helpers.ts";

const category = (db: ReturnType<typeof freshDb>, barcode: string) =>
  (db.query("SELECT category FROM products WHERE barcode = ?").get(barcode) as { category: string | null }).category;

describe("reclassifyIfTableChanged", () => {
  test("a new table version classifies every stored product again, once", () => {
    const db = freshDb();
    runInputs(db, [pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item(gtin(1), 690, { name: "חלב תנובה 3% 1 ליטר" }), item(gtin(2), 500, { name: "במבה אסם 80 גרם" })])]);
    // As written by an older keyword table.
    db.run("UPDATE products SET category = 'other'");
    const byHand = (name: string) => (name.startsWith("חלב") ? "dairy" : "snacks");
    expect(reclassifyIfTableChanged(db, byHand, "v2")).toBe(2);
    expect(category(db, gtin(1))).toBe("dairy");
    expect(category(db, gtin(2))).toBe("snacks");
    // Same version: nothing is read or written again.
    db.run("UPDATE products SET category = 'other' WHERE barcode = ?", [gtin(2)]);
    expect(reclassifyIfTableChanged(db, byHand, "v2")).toBe(0);
    expect(category(db, gtin(2))).toBe("other");
  });

  test("an import with the service's classifier stamps its table version and fixes stale categories", () => {
    const db = freshDb();
    runInputs(db, [pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item(gtin(1), 690, { name: "חלב תנובה 3% 1 ליטר" })])], { classify, classifierVersion: CATEGORIES_VERSION });
    expect(db.query("SELECT value FROM meta WHERE key = 'categories_version'").get()).toEqual({ value: CATEGORIES_VERSION });
    // An upgrade changed the table: the stored stamp no longer matches.
    db.run("UPDATE products SET category = 'other'");
    db.run("UPDATE meta SET value = 'older' WHERE key = 'categories_version'");
    runInputs(db, [pricesInput("price", RAMI_LEVY, "1", at(21), [item(gtin(3), 100, { name: "לחם אחיד פרוס" })])], { classify, classifierVersion: CATEGORIES_VERSION });
    expect(category(db, gtin(1))).toBe(classify("חלב תנובה 3% 1 ליטר"));
    expect(category(db, gtin(1))).toBe("dairy");
  });
});
