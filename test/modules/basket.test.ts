import { beforeAll, describe, expect, test } from "bun:test";
import { testApp, commitData } from "../helpers/app.ts";
import { Fixture } from "../helpers/fixture.ts";
import { newKey } from "../helpers/keys.ts";
import { refreshChainProducts } from "../../src/db/chain-products.ts";

const ctx = testApp();
const f = new Fixture(ctx.db.prices, ctx.chainIds);
let key: Record<string, string>;
const MILK = "7290000066318";
const BAMBA = "7290000066004";
const COTTAGE = "7290000066011";
const BREAD = "7290000066028";
const UNKNOWN = "9999999999999";
const bulk: string[] = [];

beforeAll(async () => {
  const s1 = f.store("shufersal", "1", { city: "חיפה", region: "haifa" });
  const s2 = f.store("shufersal", "2", { city: "חיפה", region: "haifa" });
  const s3 = f.store("shufersal", "3", { city: "תל אביב-יפו", region: "tel-aviv" });
  const r1 = f.store("rami-levy", "1", { city: "חיפה", region: "haifa" });
  const r2 = f.store("rami-levy", "2", { city: "תל אביב-יפו", region: "tel-aviv" });
  const milk = f.product(MILK, "חלב 3% 1 ליטר");
  const bamba = f.product(BAMBA, "במבה 80 גרם");
  const cottage = f.product(COTTAGE, "קוטג' 5%");
  const bread = f.product(BREAD, "לחם אחיד");
  f.price(s1, milk, 690); f.price(s2, milk, 660); f.price(s3, milk, 690);
  f.price(r1, milk, 650); f.price(r2, milk, 650);
  for (const s of [s1, s2, s3]) { f.price(s, bamba, 500); f.price(s, cottage, 520); f.price(s, bread, 750); }
  for (const r of [r1, r2]) { f.price(r, bamba, 480); f.price(r, bread, 700); }
  f.promotion("shufersal", "B3", { stores: [s1, s2, s3], items: [bamba], minQty: 3, maxQty: 6, discountedPrice: 1000, description: "3 ב-10" });
  f.promotion("shufersal", "OLD", { stores: [s1, s2, s3], items: [milk], minQty: 1, discountedPrice: 100, endsAt: "2026-11-01T00:00:00+02:00" });
  f.promotion("shufersal", "CPN", { stores: [s1, s2, s3], items: [cottage], minQty: 1, discountedPrice: 100, coupon: true });
  f.promotion("rami-levy", "M10", { stores: [r1, r2], items: [milk], minQty: 1, discountRate: 0.1 });
  f.promotion("rami-levy", "CLUB", { stores: [r1, r2], items: [bread], minQty: 1, discountedPrice: 500, clubOnly: true });
  // 100 products for the exact-sum test: price 1.00 + i agorot, sold at Shufersal store 3.
  for (let i = 0; i < 100; i++) {
    const barcode = String(7290100000000 + i);
    bulk.push(barcode);
    f.price(s3, f.product(barcode, `מוצר ${i}`), 100 + i);
  }
  refreshChainProducts(ctx.db.prices);
  commitData(ctx.deps);
  key = newKey(ctx.deps, "pro").headers;
});

async function compare(body: unknown, headers: Record<string, string> = { "content-type": "application/json" }) {
  const res = await ctx.app.handle(
    new Request("http://localhost/api/v1/basket/compare/", { method: "POST", headers: { ...key, ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) }),
  );
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

const BASKET = {
  items: [
    { barcode: MILK, quantity: 2 },
    { barcode: BAMBA, quantity: 7 },
    { barcode: COTTAGE, quantity: 1 },
    { barcode: BREAD, quantity: 1 },
    { barcode: UNKNOWN, quantity: 1 },
    { barcode: "00" + MILK, quantity: 1 }, // merged with the first line: 3 cartons of milk
  ],
};

describe("POST /api/v1/basket/compare/ by chain", () => {
  test("totals with promotions open to all, breakdown, missing items and ranking", async () => {
    const { status, body } = await compare(BASKET);
    expect(status).toBe(200);
    const { data } = body;
    expect(data.missing_items).toEqual([UNKNOWN]);
    expect(data.cheapest_store).toBe("shufersal"); // 4 items found beats a lower total with 3
    expect(data.stores.map((s: any) => s.chain_id)).toEqual(["shufersal", "rami-levy"]);
    const [shufersal, rami] = data.stores;
    // Shufersal: milk 3 × 6.90 (expired promo ignored) = 20.70; bamba 7 with "3 for 10, max 6": 2 × 10.00 + 1 × 5.00 = 25.00;
    // cottage 5.20 (coupon ignored); bread 7.50 → 58.40. Shelf: 20.70 + 35.00 + 5.20 + 7.50 = 68.40.
    expect(shufersal).toMatchObject({ total_ils: "58.40", shelf_total_ils: "68.40", items_found: 4, items_total: 5, missing_items: [UNKNOWN] });
    expect(shufersal.items).toEqual([
      { barcode: MILK, name: "חלב 3% 1 ליטר", quantity: 3, unit_price_ils: "6.90", line_total_ils: "20.70", promotion_id: null, suspect: false },
      { barcode: BAMBA, name: "במבה 80 גרם", quantity: 7, unit_price_ils: "5.00", line_total_ils: "25.00", promotion_id: "shufersal:B3", suspect: false },
      { barcode: COTTAGE, name: "קוטג' 5%", quantity: 1, unit_price_ils: "5.20", line_total_ils: "5.20", promotion_id: null, suspect: false },
      { barcode: BREAD, name: "לחם אחיד", quantity: 1, unit_price_ils: "7.50", line_total_ils: "7.50", promotion_id: null, suspect: false },
    ]);
    // Rami Levy: milk 3 × 6.50 × 0.9 = 17.55; bamba 7 × 4.80 = 33.60; bread 7.00 (club price ignored) → 58.15.
    expect(rami).toMatchObject({ total_ils: "58.15", shelf_total_ils: "60.10", items_found: 3, items_total: 5, missing_items: [COTTAGE, UNKNOWN] });
    expect(rami.items[0]).toMatchObject({ barcode: MILK, line_total_ils: "17.55", promotion_id: "rami-levy:M10" });
  });

  test.each([
    [2, "10.00", null], // below the minimum: shelf price
    [3, "10.00", "shufersal:B3"], // exactly the minimum
    [6, "20.00", "shufersal:B3"], // two full groups
    [8, "30.00", "shufersal:B3"], // above the maximum of 6: 2 groups + 2 × 5.00
  ])("multi-buy edge: %i bamba → %s", async (quantity, total, promotion) => {
    const { body } = await compare({ items: [{ barcode: BAMBA, quantity }], chain_ids: ["shufersal"] });
    expect(body.data.stores).toHaveLength(1);
    expect(body.data.stores[0].total_ils).toBe(total);
    expect(body.data.stores[0].items[0].promotion_id).toBe(promotion);
  });

  test("chain_ids restricts the chains compared", async () => {
    const { body } = await compare({ ...BASKET, chain_ids: ["rami-levy"] });
    expect(body.data.stores.map((s: any) => s.chain_id)).toEqual(["rami-levy"]);
    expect(body.data.cheapest_store).toBe("rami-levy");
  });

  test("a 100-item basket sums exactly in agorot", async () => {
    const items = bulk.map((barcode, i) => ({ barcode, quantity: (i % 5) + 1 }));
    let expected = 0;
    for (let i = 0; i < 100; i++) expected += (100 + i) * ((i % 5) + 1);
    const { status, body } = await compare({ items });
    expect(status).toBe(200);
    const shufersal = body.data.stores.find((s: any) => s.chain_id === "shufersal");
    expect(shufersal.items_found).toBe(100);
    expect(shufersal.total_ils).toBe(`${Math.floor(expected / 100)}.${String(expected % 100).padStart(2, "0")}`);
    expect(body.data.cheapest_store).toBe("shufersal");
  });
});

describe("POST /api/v1/basket/compare/ in a city", () => {
  test("each chain's cheapest store in the city is used and named", async () => {
    const { body } = await compare({ ...BASKET, city: "חיפה" });
    const [shufersal, rami] = body.data.stores;
    // Store 2 (milk 6.60): 19.80 + 25.00 + 5.20 + 7.50 = 57.50, cheaper than store 1 (58.40).
    expect(shufersal).toMatchObject({ chain_id: "shufersal", total_ils: "57.50", store: { store_id: "2", city: "חיפה", region: "haifa" } });
    expect(rami).toMatchObject({ chain_id: "rami-levy", total_ils: "58.15", store: { store_id: "1" } });
    const nowhere = await compare({ ...BASKET, city: "מטולה" });
    expect(nowhere.body.data).toEqual({ cheapest_store: null, stores: [], missing_items: [UNKNOWN] });
  });
});

describe("POST /api/v1/basket/compare/ validation", () => {
  test.each([
    [{ items: [] }, "items"],
    [{ items: Array.from({ length: 101 }, () => ({ barcode: MILK, quantity: 1 })) }, "items"],
    [{ items: [{ barcode: MILK, quantity: 0 }] }, "items[0].quantity"],
    [{ items: [{ barcode: MILK, quantity: 1 }, { barcode: MILK, quantity: 100 }] }, "items[1].quantity"],
    [{ items: [{ barcode: MILK, quantity: 1.5 }] }, "items[0].quantity"],
    [{ items: [{ barcode: MILK, quantity: "2" }] }, "items[0].quantity"],
    [{ items: [{ barcode: "12a", quantity: 1 }] }, "items[0].barcode"],
    [{ items: [{ barcode: 7290000066318, quantity: 1 }] }, "items[0].barcode"],
    [{ items: [{ barcode: MILK, quantity: 1 }], chain_ids: ["no-such-chain"] }, "chain_ids[0]"],
    [{ items: [{ barcode: MILK, quantity: 1 }], city: "" }, "city"],
    [[1, 2], "body"],
    [null, "body"],
    [{ items: [{ barcode: MILK, quantity: 1 }], pad: 1 }, "pad"], // an unexpected member is named itself
    [{ items: [{ barcode: MILK, quantity: 1, price: 1 }] }, "items[0].price"],
    [{ items: [{ quantity: 1 }] }, "items[0].barcode"],
    [{ items: [{ barcode: "", quantity: 1 }] }, "items[0].barcode"],
    [{ items: [{ barcode: MILK, quantity: 1 }], chain_ids: [] }, "chain_ids"],
    [{ items: [{ barcode: MILK, quantity: 1 }], chain_ids: ["Shufersal"] }, "chain_ids[0]"],
    [{ items: "milk" }, "items"],
  ])("%j → 400 naming %s", async (body, param) => {
    const res = await compare(body);
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    expect(res.body).toMatchObject({ code: "invalid_parameter", param });
  });

  test("not JSON → 415; malformed or empty JSON → 400 invalid_parameter (param body); over 64 KiB → 413", async () => {
    const text = await compare(JSON.stringify(BASKET), { "content-type": "text/plain" });
    expect(text.status).toBe(415);
    expect(text.body.code).toBe("unsupported_media_type");
    const untyped = await ctx.app.handle(new Request("http://localhost/api/v1/basket/compare/", { method: "POST", headers: key, body: JSON.stringify(BASKET) }));
    expect(untyped.status).toBe(415);
    const broken = await compare("{ items: [", { "content-type": "application/json" });
    expect(broken.status).toBe(400);
    expect(broken.body).toMatchObject({ code: "invalid_parameter", param: "body" });
    const empty = await compare("  ", { "content-type": "application/json" });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ code: "invalid_parameter", param: "body" });
    const huge = await compare(JSON.stringify({ items: [{ barcode: MILK, quantity: 1 }], pad: "x".repeat(70_000) }));
    expect(huge.status).toBe(413);
    expect(huge.body.code).toBe("payload_too_large");
  });
});
