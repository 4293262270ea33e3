/**
 * Price entries a shopper can trust (issue 41 parts 1, 3, 4, 8): the club price beside the public
 * one, suspect prices flagged and never listed first, the 30-day low, and how loose produce is
 * sold — on data planted to exercise each rule.
 */
import { describe, expect, test } from "bun:test";
import { refreshChainProducts } from "../../src/db/chain-products.ts";
import { commitData, FIXED_NOW, get, testApp } from "../helpers/app.ts";
import { Fixture } from "../helpers/fixture.ts";
import { newKey } from "../helpers/keys.ts";

const ctx = testApp({ now: () => FIXED_NOW });
const f = new Fixture(ctx.db.prices, ctx.chainIds);
const key = newKey(ctx.deps, "pro", "test").headers;

const MILK = "7290000000017";
const WATER = "7290000000024";
const milk = f.product(MILK, "חלב 3% 1 ליטר", { sizeAmount: 1000, sizeUnit: "ml" });
const water = f.product(WATER, "מים מינרליים 1.5 ליטר");
const shufersal = [f.store("shufersal", "1"), f.store("shufersal", "2")];
const rami = f.store("rami-levy", "1");
const victory = f.store("victory", "1");
const yochananof = f.store("yochananof", "1");

for (const s of shufersal) f.price(s, milk, 690);
f.price(rami, milk, 650);
f.price(victory, milk, 700);
f.price(yochananof, milk, 1); // 0.01: a placeholder
for (const s of shufersal) f.price(s, water, 500);
f.price(rami, water, 520);
f.price(victory, water, 5); // 0.05 against a median of 5.10 elsewhere: far below
f.price(yochananof, water, 510);

// Rami Levy's milk: 5.00 until October, 6.00 from 1 Oct (in effect when the 30-day window opens on
// 23 Oct), 6.50 since 10 Nov. Shufersal's store 1 was at 6.20 for two days in November.
f.history(rami, milk, "2026-09-01T08:00:00+03:00", 500);
f.history(rami, milk, "2026-10-01T08:00:00+03:00", 600);
f.history(rami, milk, "2026-11-10T08:00:00+02:00", 650);
f.history(shufersal[0]!, milk, "2026-11-01T08:00:00+02:00", 690);
f.history(shufersal[0]!, milk, "2026-11-05T08:00:00+02:00", 620);
f.history(shufersal[0]!, milk, "2026-11-07T08:00:00+02:00", 690);
f.history(shufersal[1]!, milk, "2026-11-01T08:00:00+02:00", 690);

// Club-only 5.90 at both Shufersal stores; a club coupon at Victory (coupons never count).
f.promotion("shufersal", "C1", { stores: shufersal, items: [milk], discountedPrice: 590, minQty: 1, clubOnly: true });
f.promotion("victory", "C2", { stores: [victory], items: [milk], discountedPrice: 400, minQty: 1, clubOnly: true, coupon: true });

// Bread: only Rami Levy sells it (the others miss a third of a three-item list).
const BREAD = "7290000000031";
const bread = f.product(BREAD, "לחם אחיד");
f.price(rami, bread, 750);

// Loose tomatoes: a generic product sold by weight.
const tomatoes = f.product("g-tomatoes", "עגבניות");
ctx.db.prices.run("UPDATE products SET scope_chain_id = -1, is_weighted = 1, size_amount = 1000, size_unit = 'g' WHERE id = ?", [tomatoes]);
f.price(rami, tomatoes, 590);
f.price(shufersal[0]!, tomatoes, 690);

refreshChainProducts(ctx.db.prices);
commitData(ctx.deps);

const prices = async (barcode: string, granularity = "chain") => (await get(ctx.app, `/api/v1/prices/?barcode=${barcode}&granularity=${granularity}`, key)).body.data.prices as any[];

describe("club prices (part 1)", () => {
  test("a chain's club-only promotion gives club_price_ils beside the public price; coupons do not", async () => {
    const byChain = Object.fromEntries((await prices(MILK)).map((p) => [p.chain_id, p]));
    expect(byChain.shufersal).toMatchObject({ price_ils: "6.90", effective_price_ils: "6.90", club_price_ils: "5.90", is_on_promotion: false });
    expect(byChain.victory).toMatchObject({ effective_price_ils: "7.00", club_price_ils: null });
    expect(byChain["rami-levy"].club_price_ils).toBeNull();
  });

  test("store entries: the store's club price", async () => {
    const stores = await prices(MILK, "store");
    expect(stores.filter((p) => p.chain_id === "shufersal").map((p) => p.club_price_ils)).toEqual(["5.90", "5.90"]);
  });
});

describe("suspect prices (part 3)", () => {
  test("a 0.01 price is a placeholder: flagged and listed after every other chain", async () => {
    const list = await prices(MILK);
    expect(list.map((p) => [p.chain_id, p.suspect, p.suspect_reason])).toEqual([
      ["rami-levy", false, null],
      ["shufersal", false, null],
      ["victory", false, null],
      ["yochananof", true, "placeholder"],
    ]);
  });

  test("a price under a fifth of the other chains' median is far below it; store entries the same", async () => {
    const list = await prices(WATER);
    expect(list.at(-1)).toMatchObject({ chain_id: "victory", price_ils: "0.05", suspect: true, suspect_reason: "far_below_median" });
    expect(list[0]).toMatchObject({ chain_id: "shufersal", suspect: false });
    const stores = await prices(WATER, "store");
    expect(stores.at(-1)).toMatchObject({ chain_id: "victory", suspect: true, suspect_reason: "far_below_median" });
    expect(stores.slice(0, -1).every((p) => p.suspect === false)).toBe(true);
  });
});

describe("the 30-day low (part 4)", () => {
  test("per store: the lowest shelf price in effect during the 30 days before today, the one in effect when it opened included", async () => {
    const stores = await prices(MILK, "store");
    const low = Object.fromEntries(stores.map((p) => [`${p.chain_id}/${p.store.store_id}`, p.lowest_price_30d_ils]));
    expect(low).toMatchObject({ "rami-levy/1": "6.00", "shufersal/1": "6.20", "shufersal/2": "6.90" });
  });

  test("per chain: the lowest of the chain's daily prices, as the history endpoint gives them over the same days", async () => {
    const byChain = Object.fromEntries((await prices(MILK)).map((p) => [p.chain_id, p.lowest_price_30d_ils]));
    // Shufersal's two stores: 6.20 and 6.90 on 5–6 Nov is a tie, the lower wins the mode.
    expect(byChain).toMatchObject({ "rami-levy": "6.00", shufersal: "6.20" });
    const history = (await get(ctx.app, `/api/v1/prices/${MILK}/history/?months=2&chain_id=rami-levy`, key)).body.data.history as any[];
    // The record in effect when the window opens (23 Oct), and those after it.
    const opening = history.filter((h) => h.date < "2026-10-23").at(-1);
    const inWindow = [opening, ...history.filter((h) => h.date >= "2026-10-23")].map((h) => Number(h.price_ils));
    expect(Math.min(...inWindow).toFixed(2)).toBe(byChain["rami-levy"]);
  });
});

describe("loose produce says per kg (part 8)", () => {
  test("a generic product's entries say sold_by kg; a packaged product's carry no sold_by", async () => {
    expect((await prices("g-tomatoes")).map((p) => p.sold_by)).toEqual(["kg", "kg"]);
    expect((await prices("g-tomatoes", "store")).map((p) => p.sold_by)).toEqual(["kg", "kg"]);
    expect((await prices(MILK))[0].sold_by).toBeUndefined();
  });
});

const basket = async (body: object) => {
  const res = await ctx.app.handle(
    new Request("http://localhost/api/v1/basket/compare/", { method: "POST", headers: { ...key, "Content-Type": "application/json" }, body: JSON.stringify(body) }),
  );
  return ((await res.json()) as any).data;
};
const items = (...barcodes: string[]) => barcodes.map((barcode) => ({ barcode, quantity: 1 }));

describe("the basket: club totals, coverage, estimates, suspect prices (parts 1–3)", () => {
  test("club_total_ils applies club-only promotions; total_ils keeps what anyone pays", async () => {
    const data = await basket({ items: items(MILK, WATER) });
    const shufersal = data.stores.find((c: any) => c.chain_id === "shufersal");
    expect(shufersal).toMatchObject({ total_ils: "11.90", club_total_ils: "10.90" });
    expect(data.stores.find((c: any) => c.chain_id === "victory")).toMatchObject({ club_total_ils: "7.05" }); // its club coupon never counts
  });

  test("cheapest_store passes over chains whose total rests on a suspect price, and they say so", async () => {
    const data = await basket({ items: items(MILK, WATER) });
    expect(data.stores.map((c: any) => [c.chain_id, c.total_ils, c.suspect_items])).toEqual([
      ["yochananof", "5.11", [MILK]],
      ["victory", "7.05", [WATER]],
      ["rami-levy", "11.70", []],
      ["shufersal", "11.90", []],
    ]);
    expect(data.cheapest_store).toBe("rami-levy");
    expect(data.stores[0].items[0]).toMatchObject({ barcode: MILK, suspect: true });
  });

  test("a chain missing an item: coverage, and the total with the item at the median of the chains selling it", async () => {
    const data = await basket({ items: items(MILK, WATER, BREAD) });
    const shufersal = data.stores.find((c: any) => c.chain_id === "shufersal");
    expect(shufersal).toMatchObject({ coverage: 0.6667, total_ils: "11.90", estimated_total_ils: "19.40", estimated_items: [BREAD], ranked: true, not_ranked_reason: null });
    expect(data.stores.find((c: any) => c.chain_id === "rami-levy")).toMatchObject({ coverage: 1, estimated_total_ils: "19.20", estimated_items: [] });
  });

  test("min_coverage leaves chains below it unranked, after the ranked ones; cheapest_store is only a ranked chain", async () => {
    const data = await basket({ items: items(MILK, WATER, BREAD), min_coverage: 0.8 });
    expect(data.stores.map((c: any) => [c.chain_id, c.ranked, c.not_ranked_reason])).toEqual([
      ["rami-levy", true, null],
      ["yochananof", false, "coverage_below_minimum"],
      ["victory", false, "coverage_below_minimum"],
      ["shufersal", false, "coverage_below_minimum"],
    ]);
    expect(data.cheapest_store).toBe("rami-levy");
    const none = await basket({ items: items(MILK, BREAD), min_coverage: 1, chain_ids: ["shufersal"] });
    expect(none.cheapest_store).toBeNull();
  });

  test("an item sold nowhere leaves the estimate unknown", async () => {
    const data = await basket({ items: items(MILK, "7290000000048") });
    expect(data.stores.every((c: any) => c.estimated_total_ils === null)).toBe(true);
  });

  test("a generic product's line says sold_by kg", async () => {
    const data = await basket({ items: items("g-tomatoes") });
    expect(data.stores[0].items[0]).toMatchObject({ barcode: "g-tomatoes", sold_by: "kg" });
  });
});

describe("alerts never fire on a suspect price (part 3)", () => {
  test("the alert's view of the product leaves the chain with a placeholder price out", async () => {
    const { priceView } = await import("../../src/alerts/price-view.ts");
    const view = priceView(ctx.deps.dataSets.live, { barcode: MILK, chainId: null, chainIds: [], city: null }, FIXED_NOW);
    expect(view.chains.map((c) => c.chainId).sort()).toEqual(["rami-levy", "shufersal", "victory"]);
  });
});
