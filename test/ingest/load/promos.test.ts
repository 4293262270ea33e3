import { describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { RAMI_LEVY, SHUFERSAL, at, gtin, item, pricesInput, promoItem, promosInput, promotion } from "../../helpers/price-records.ts";
import { count, freshDb, runInputs } from "../../helpers/ingest/session-helpers.ts";

const A = gtin(1), B = gtin(2);

/** promotion codes linked to a store. */
function storePromotions(db: Database, storeCode: string): string[] {
  return (
    db
      .query(
        `SELECT pr.promotion_code FROM promotion_stores ps JOIN promotions pr ON pr.id = ps.promotion_id
           JOIN stores s ON s.id = ps.store_id WHERE s.store_code = ? ORDER BY pr.promotion_code`,
      )
      .all(storeCode) as { promotion_code: string }[]
  ).map((r) => r.promotion_code);
}

function withProducts(db: Database) {
  runInputs(db, [pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item(A, 500), item(B, 700), item("77", 100, { itemType: 0 })])]);
}

describe("promotions", () => {
  test("a PromoFull replaces the set of promotions linked to its store; other stores keep theirs", () => {
    const db = freshDb();
    withProducts(db);
    runInputs(db, [
      promosInput("promofull", RAMI_LEVY, "1", at(20), [promotion("P1", [promoItem(A)]), promotion("P2", [promoItem(B)])]),
      promosInput("promofull", RAMI_LEVY, "2", at(20), [promotion("P1", [promoItem(A)])]),
    ]);
    const { outcomes } = runInputs(db, [promosInput("promofull", RAMI_LEVY, "1", at(21), [promotion("P3", [promoItem(A)])])]);
    expect(outcomes[0]!.counts).toMatchObject({ rows: 1, linked: 1, unlinked: 2 });
    expect(storePromotions(db, "1")).toEqual(["P3"]);
    expect(storePromotions(db, "2")).toEqual(["P1"]);
    // P2 ran only in store 1: garbage-collected with its items.
    expect(db.query("SELECT promotion_code FROM promotions ORDER BY promotion_code").all()).toEqual([{ promotion_code: "P1" }, { promotion_code: "P3" }]);
    expect(count(db, "SELECT count(*) AS n FROM promotion_items")).toBe(2);
  });

  test("a Promo file adds and updates without unlinking", () => {
    const db = freshDb();
    withProducts(db);
    runInputs(db, [promosInput("promofull", RAMI_LEVY, "1", at(20), [promotion("P1", [promoItem(A)])])]);
    runInputs(db, [promosInput("promo", RAMI_LEVY, "1", at(20, 12), [promotion("P2", [promoItem(B)]), promotion("P1", [promoItem(A), promoItem(B)], { discountedPrice: 900 })])]);
    expect(storePromotions(db, "1")).toEqual(["P1", "P2"]);
    expect(db.query("SELECT discounted_price, (SELECT count(*) FROM promotion_items WHERE promotion_id = promotions.id) AS items FROM promotions WHERE promotion_code = 'P1'").get()).toEqual({
      discounted_price: 900,
      items: 2,
    });
  });

  test("items of unknown products are counted and kept by code; internal codes resolve within the chain", () => {
    const db = freshDb();
    withProducts(db);
    const { outcomes } = runInputs(db, [
      promosInput("promofull", RAMI_LEVY, "1", at(20), [
        promotion("P1", [promoItem(A), promoItem("0000000000000"), promoItem(gtin(99)), promoItem("77", { itemType: 0, isGift: true })], {
          isClubOnly: true,
          clubIds: ["3"],
        }),
      ]),
    ]);
    expect(outcomes[0]!.counts).toMatchObject({ unknownItems: 1 });
    expect(outcomes[0]!.warnings.join()).toContain("1 promotion items of products no price file has published yet (kept; linked when one does)");
    // Kept by code (the all-zero basket-level sentinel is not an item), waiting for their product.
    expect(db.query("SELECT item_key FROM promotion_items WHERE product_id IS NULL").all()).toEqual([{ item_key: gtin(99) }]);
    expect(db.query("SELECT p.barcode_key, pi.is_gift FROM promotion_items pi JOIN products p ON p.id = pi.product_id ORDER BY p.barcode_key").all()).toEqual([
      { barcode_key: A, is_gift: 0 },
      { barcode_key: "77", is_gift: 1 },
    ]);
    expect(db.query("SELECT is_club_only, club_ids FROM promotions").get()).toEqual({ is_club_only: 1, club_ids: '["3"]' });
  });

  test("an item marked internal (ItemType 0) reaches a shared GTIN product only when the store sells it", () => {
    const db = freshDb();
    // Shufersal sells A and B as barcodes; Rami Levy store 1 sells B (ItemType 1), never A.
    runInputs(db, [
      pricesInput("pricefull", SHUFERSAL, "7", at(20), [item(A, 500), item(B, 700)]),
      pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item(B, 690)]),
    ]);
    const { outcomes } = runInputs(db, [
      promosInput("promofull", RAMI_LEVY, "1", at(20), [promotion("P1", [promoItem(A, { itemType: 0 }), promoItem(B, { itemType: 0 })])]),
    ]);
    // A would merge Rami Levy's internal code with Shufersal's product: skipped as unknown.
    expect(outcomes[0]!.counts).toMatchObject({ unknownItems: 1 });
    expect(db.query("SELECT p.barcode_key, p.scope_chain_id FROM promotion_items pi JOIN products p ON p.id = pi.product_id").all()).toEqual([
      { barcode_key: B, scope_chain_id: 0 },
    ]);
  });

  test("a truncated PromoFull links what it lists and unlinks nothing", () => {
    const db = freshDb();
    withProducts(db);
    runInputs(db, [promosInput("promofull", RAMI_LEVY, "1", at(20), [promotion("P1", [promoItem(A)]), promotion("P2", [promoItem(B)])])]);
    const { outcomes } = runInputs(db, [promosInput("promofull", RAMI_LEVY, "1", at(21), [promotion("P3", [promoItem(A)])], { partial: true })]);
    expect(outcomes[0]!.status).toBe("partial");
    expect(storePromotions(db, "1")).toEqual(["P1", "P2", "P3"]);
  });

  test("an empty PromoFull clears the store's promotions (stores may have none)", () => {
    const db = freshDb();
    withProducts(db);
    runInputs(db, [promosInput("promofull", RAMI_LEVY, "1", at(20), [promotion("P1", [promoItem(A)])])]);
    runInputs(db, [promosInput("promofull", RAMI_LEVY, "1", at(21), [])]);
    expect(storePromotions(db, "1")).toEqual([]);
    expect(count(db, "SELECT count(*) AS n FROM promotions")).toBe(0);
  });

  test("the same promotion in many store files is written once per run", () => {
    const db = freshDb();
    withProducts(db);
    const files = ["1", "2", "3"].map((s) => promosInput("promofull", RAMI_LEVY, s, at(20), [promotion("P1", [promoItem(A)])]));
    const { outcomes } = runInputs(db, files);
    expect(outcomes.map((o) => o.counts.written)).toEqual([1, 0, 0]);
    expect(storePromotions(db, "3")).toEqual(["P1"]);
  });
});
