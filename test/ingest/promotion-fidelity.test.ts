/**
 * Promotions as the chains publish them (issue 19 parts 1–5, issue 18 part 4), end to end: files
 * of the real shapes (test/helpers/real-shape.ts) are imported with importPaths and read back
 * through the API.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { importPaths } from "../../src/ingest/run/import.ts";
import { loadRegistry } from "../../src/registry.ts";
import { FIXED_NOW, get, testApp } from "../helpers/app.ts";
import { newKey } from "../helpers/keys.ts";
import { binaPriceXml, binaPromoXml, writeFiles } from "../helpers/real-shape.ts";

const KING = "7290058108879";
const VICTORY = "7290696200003";
const VICTORY_2 = "7290058103393";
// Valid GTIN-13s (check digit right), unknown to any other test.
const A = "7290111111112";
const B = "7290111111129";
const C = "7290111111136";
const G = "7290111111143";
const X = "7290111111150";
const Y = "7290111111167";

const root = mkdtempSync(join(tmpdir(), "mehir-promo-fidelity-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const ctx = testApp();
let key: Record<string, string>;
let dirs = 0;

async function importFiles(files: Record<string, string>) {
  const dir = join(root, `run${++dirs}`);
  const paths = writeFiles(dir, files);
  const report = await importPaths({ db: ctx.db.prices, registry: loadRegistry(), paths, origin: "cli", source: "live", now: () => FIXED_NOW, parseWorkers: 0 });
  ctx.deps.data.refresh();
  return report;
}

const call = (path: string) => get(ctx.app, path, key);
const feed = async (query: string) => (await call(`/api/v1/promos/feed/?${query}`)).body.data as any[];
const storePrices = async (barcode: string) =>
  Object.fromEntries(
    ((await call(`/api/v1/prices/?barcode=${barcode}&granularity=store`)).body.data.prices as any[]).map((p) => [
      `${p.chain_id}/${p.store.store_id}`,
      [p.price_ils, p.effective_price_ils],
    ]),
  );

const first = await (async () => {
  key = newKey(ctx.deps, "pro", "live").headers;
  return importFiles({
    [`PriceFull${KING}-001-202611220300.xml`]: binaPriceXml(KING, "1", [
      { code: A, price: "5.00" },
      { code: B, price: "7.00" },
      { code: C, price: "6.00" },
      { code: G, price: "9.90" },
    ]),
    [`PriceFull${KING}-002-202611220300.xml`]: binaPriceXml(KING, "2", [
      { code: A, price: "5.00" },
      { code: B, price: "7.00" },
      { code: C, price: "6.00" },
    ]),
    // One promotion id, a different list at each store (store 1: 3 items, store 2: 2).
    [`PromoFull${KING}-001-202611220300.xml`]: binaPromoXml(KING, "1", [
      { id: "100", items: [A, B, C], discountedPrice: "4.00" },
      { id: "200", description: "קנה במבה קבל כוס", items: [A], gifts: [G], discountedPrice: "4.50" },
      // A start in SQL Server's form (cut short) and an end in its full form.
      { id: "300", items: [B], start: "May 18 2015 12:0", startHour: "", end: "Jun  1 2027 11:59PM", endHour: "", discountedPrice: "6.50" },
      // An end no date form reads: never served as active.
      { id: "400", items: [C], end: "31 בדצמבר", endHour: "", discountedPrice: "1.00" },
    ]),
    [`PromoFull${KING}-002-202611220300.xml`]: binaPromoXml(KING, "2", [{ id: "100", items: [A, B], discountedPrice: "4.00" }]),
    // Store 3's promotion names X before any price file has published it (its PriceFull comes in
    // a later import); store 4's price file has a name that says nothing, so it loads after the
    // promotion files of this run.
    [`PromoFull${KING}-003-202611220300.xml`]: binaPromoXml(KING, "3", [{ id: "500", items: [X], discountedPrice: "2.00" }]),
    [`PromoFull${KING}-004-202611220300.xml`]: binaPromoXml(KING, "4", [{ id: "600", items: [Y], discountedPrice: "3.00" }]),
    "kingstore-branch4.xml": binaPriceXml(KING, "4", [{ code: Y, price: "8.00" }]),
    // Victory publishes under two chain codes; one promotion id at a store of each.
    [`PriceFull${VICTORY}-001-202611220300.xml`]: binaPriceXml(VICTORY, "1", [{ code: A, price: "5.50" }]),
    [`PriceFull${VICTORY_2}-087-202611220300.xml`]: binaPriceXml(VICTORY_2, "87", [{ code: A, price: "5.50" }]),
    [`PromoFull${VICTORY}-001-202611220300.xml`]: binaPromoXml(VICTORY, "1", [{ id: "555", items: [A], discountedPrice: "5.00" }]),
    [`PromoFull${VICTORY_2}-087-202611220300.xml`]: binaPromoXml(VICTORY_2, "87", [{ id: "555", items: [A], discountedPrice: "5.00" }]),
  });
})();

describe("promotion items per store (part 1)", () => {
  test("each store keeps its own list: one promotion, two lists", () => {
    expect(first.status).toBe("ok");
    const p100 = ctx.db.prices.query("SELECT id FROM promotions WHERE promotion_code = '100'").all() as { id: number }[];
    expect(p100).toHaveLength(1);
    expect(ctx.db.prices.query("SELECT count(*) AS n FROM promotion_lists WHERE promotion_id = ?").get(p100[0]!.id)).toEqual({ n: 2 });
  });

  test("the feed: items and item_count follow the store's list; store_count with a barcode counts the stores whose list names it", async () => {
    const all = (await feed("chain_id=king-store")).find((p) => p.promotion_id === "king-store:100");
    expect(all).toMatchObject({ store_count: 2, item_count: 3 });
    const store2 = (await feed("chain_id=king-store&store_id=2")).find((p) => p.promotion_id === "king-store:100");
    expect(store2).toMatchObject({ item_count: 2 });
    expect(store2.items.map((i: any) => i.barcode)).toEqual([A, B]);
    const withC = (await feed(`chain_id=king-store&barcode=${C}`)).filter((p) => p.promotion_id === "king-store:100");
    expect(withC).toHaveLength(1);
    expect(withC[0].store_count).toBe(1);
    // Store 2 does not list C: the promotion is not among store 2's promotions of C.
    expect((await feed(`chain_id=king-store&store_id=2&barcode=${C}`)).map((p) => p.promotion_id)).toEqual([]);
  });

  test("the effective price of an item at a store follows that store's list", async () => {
    const c = await storePrices(C);
    expect(c["king-store/1"]).toEqual(["6.00", "4.00"]);
    expect(c["king-store/2"]).toEqual(["6.00", "6.00"]);
    const a = await storePrices(A);
    expect(a["king-store/2"]).toEqual(["5.00", "4.00"]);
  });

  test("the basket counts a promotion's stores over all its lists naming the item", async () => {
    const res = await ctx.app.handle(
      new Request("http://localhost/api/v1/basket/compare/", {
        method: "POST",
        headers: { ...key, "Content-Type": "application/json" },
        body: JSON.stringify({ items: [{ barcode: A, quantity: 1 }, { barcode: C, quantity: 1 }], chain_ids: ["king-store"] }),
      }),
    );
    const king = ((await res.json()) as any).data.stores[0];
    // A: in both stores' lists of promotion 100 → 4.00. C: only store 1's list names it, one store
    // of the two selling C: half of them → 4.00 too.
    expect(king.items.map((i: any) => [i.barcode, i.line_total_ils, i.promotion_id])).toEqual([
      [A, "4.00", "king-store:100"],
      [C, "4.00", "king-store:100"],
    ]);
  });
});

describe("gift items (part 2)", () => {
  test("GiftsItems are kept as the promotion's gifts, shown in the feed", async () => {
    const p200 = (await feed("chain_id=king-store")).find((p) => p.promotion_id === "king-store:200");
    expect(p200.item_count).toBe(2);
    expect(p200.items).toEqual([
      { barcode: A, name: `מוצר ${A}`, is_gift: false },
      { barcode: G, name: `מוצר ${G}`, is_gift: true },
    ]);
    expect(first.files.find((f) => f.fileName === `PromoFull${KING}-001-202611220300.xml`)!.counts).toMatchObject({ items: 5, gifts: 1 });
  });

  test("a gift does not change the price of the item given away", async () => {
    expect((await storePrices(G))["king-store/1"]).toEqual(["9.90", "9.90"]);
  });
});

describe("promotion items independent of import order (part 3)", () => {
  test("an item whose price file loads later in the same run is linked", async () => {
    const p600 = (await feed("chain_id=king-store")).find((p) => p.promotion_id === "king-store:600");
    expect(p600.items).toEqual([{ barcode: Y, name: `מוצר ${Y}`, is_gift: false }]);
    expect((await storePrices(Y))["king-store/4"]).toEqual(["8.00", "3.00"]);
  });

  test("an item whose price file comes in a later import is kept by code, then linked", async () => {
    const before = (await feed("chain_id=king-store")).find((p) => p.promotion_id === "king-store:500");
    expect(before.items).toEqual([{ barcode: X, name: null, is_gift: false }]);
    const later = await importFiles({ [`PriceFull${KING}-003-202611220400.xml`]: binaPriceXml(KING, "3", [{ code: X, price: "2.90" }]) });
    expect(later.status).toBe("ok");
    const after = (await feed("chain_id=king-store")).find((p) => p.promotion_id === "king-store:500");
    expect(after.items).toEqual([{ barcode: X, name: `מוצר ${X}`, is_gift: false }]);
    expect((await storePrices(X))["king-store/3"]).toEqual(["2.90", "2.00"]);
  });
});

describe("dates in every form (part 4)", () => {
  test("SQL Server style dates are read", () => {
    expect(ctx.db.prices.query("SELECT starts_at, ends_at FROM promotions WHERE promotion_code = '300'").get()).toEqual({
      starts_at: "2015-05-18T00:00:00+03:00",
      ends_at: "2027-06-01T23:59:00+03:00",
    });
  });

  test("a promotion whose dates cannot be read is reported with the raw value and left out of the feed and prices", async () => {
    const report = first.files.find((f) => f.fileName === `PromoFull${KING}-001-202611220300.xml`)!;
    expect(report.counts.unreadableDates).toBe(1);
    expect(report.warnings.join("\n")).toContain('400 ("31 בדצמבר")');
    expect((await feed("chain_id=king-store")).map((p) => p.promotion_id)).not.toContain("king-store:400");
    // C is 1.00 under promotion 400 were it served; store 1's C stays at promotion 100's 4.00.
    expect((await storePrices(C))["king-store/1"]).toEqual(["6.00", "4.00"]);
  });
});

describe("promotion identity across a chain's codes (issue 18 part 4)", () => {
  test("a promotion appears once with one id, counting the stores of both codes", async () => {
    const victory = (await feed("chain_id=victory")).filter((p) => p.promotion_id === "victory:555");
    expect(victory).toHaveLength(1);
    expect(victory[0].store_count).toBe(2);
    expect(ctx.db.prices.query("SELECT count(*) AS n FROM promotions WHERE promotion_code = '555'").get()).toEqual({ n: 1 });
  });
});

describe("file names with a dash after the type (part 5)", () => {
  test("a dash-named PriceFull is a full list: it removes what it no longer lists", async () => {
    const one = await importFiles({ [`PriceFull-${VICTORY}-097-201608280606-001.xml`]: binaPriceXml(VICTORY, "97", [{ code: B, price: "7.10" }, { code: C, price: "6.10" }]) });
    expect(one.files[0]).toMatchObject({ type: "pricefull", chainSlug: "victory", storeCode: "97", fileTime: "2016-08-28T06:06:00+03:00", status: "ok" });
    const two = await importFiles({ [`PriceFull-${VICTORY}-097-201608290606-001.xml`]: binaPriceXml(VICTORY, "97", [{ code: B, price: "7.10" }]) });
    expect(two.files[0]!.counts).toMatchObject({ removed: 1 });
    expect((await storePrices(C))["victory/97"]).toBeUndefined();
  });

  test("a name whose type reads but whose rest does not is still a PriceFull, never a delta", async () => {
    const run = await importFiles({ "PriceFull_victory_97.xml": binaPriceXml(VICTORY, "97", [{ code: A, price: "5.20" }]) });
    expect(run.files[0]).toMatchObject({ type: "pricefull", storeCode: "97" });
    expect(run.files[0]!.counts).toMatchObject({ removed: 1 });
  });
});
