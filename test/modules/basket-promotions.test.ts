import { beforeAll, describe, expect, test } from "bun:test";
import { testApp, commitData } from "../helpers/app.ts";
import { Fixture } from "../helpers/fixture.ts";
import { newKey } from "../helpers/keys.ts";
import { refreshChainProducts } from "../../src/db/chain-products.ts";
import { BasketResponse } from "../../src/modules/basket/model.ts";

// Promotion edge cases of the basket, every total computed by hand below.
// The clock is FIXED_NOW = 2026-11-22T12:00:00+02:00.
const ctx = testApp();
const f = new Fixture(ctx.db.prices, ctx.chainIds);
let key: Record<string, string>;
const RATE = "7290000000011"; // shelf 8.00; 25 % off in groups of 2, at most 4 units
const LATER = "7290000000028"; // shelf 10.00; a unit promotion not started, a club multi-buy, a coupon, a basket minimum
const TWO = "7290000000035"; // shelf 9.90; unit price 9.00 and "2 for 15.00" at once
const LOCAL = "7290000000042"; // shelf 7.00; a unit promotion in one of three stores only
const DEAR = "7290000000059"; // shelf 3.00; "3 for 10.00" costs more than 3 × 3.00
const EDGE = "7290000000066"; // shelf 6.00; one promotion ends exactly now, one starts exactly now
const ROAD = "7290000000073"; // sold only in a Rami Levy store on a road (no known city)

beforeAll(async () => {
  const s1 = f.store("shufersal", "1", { city: "חיפה", region: "haifa" });
  const s2 = f.store("shufersal", "2", { city: "חיפה", region: "haifa" });
  const s3 = f.store("shufersal", "3", { city: "תל אביב-יפו", region: "tel-aviv" });
  const road = ctx.db.prices
    .query(
      `INSERT INTO stores (chain_id, chain_code, store_code, name, city, region, prices_at)
       VALUES (?, '7290058140886', '40', 'צומת', 'כביש 6', NULL, '2026-11-22T05:00:00+02:00') RETURNING id`,
    )
    .get(f.chainId("rami-levy")) as { id: number };
  const all = [s1, s2, s3];
  const rate = f.product(RATE, "שוקולד");
  const later = f.product(LATER, "קפה");
  const two = f.product(TWO, "שמפו");
  const local = f.product(LOCAL, "גבינה");
  const dear = f.product(DEAR, "מסטיק");
  const edge = f.product(EDGE, "יוגורט");
  const roadProduct = f.product(ROAD, "מים");
  for (const s of all) {
    f.price(s, rate, 800);
    f.price(s, later, 1000);
    f.price(s, two, 990);
    f.price(s, local, 700);
    f.price(s, dear, 300);
    f.price(s, edge, 600);
  }
  f.price(road.id, roadProduct, 450);
  f.promotion("shufersal", "RATE", { stores: all, items: [rate], minQty: 2, maxQty: 4, discountRate: 0.25 });
  f.promotion("shufersal", "SOON", { stores: all, items: [later], minQty: 1, discountedPrice: 500, startsAt: "2026-12-01T00:00:00+02:00" });
  f.promotion("shufersal", "CLUB2", { stores: all, items: [later], minQty: 2, discountedPrice: 1200, clubOnly: true });
  f.promotion("shufersal", "CPN", { stores: all, items: [later], minQty: 1, discountedPrice: 100, coupon: true });
  const minimum = f.promotion("shufersal", "MIN100", { stores: all, items: [later], minQty: 1, discountedPrice: 200 });
  ctx.db.prices.run("UPDATE promotions SET min_purchase_amount = 10000 WHERE id = ?", [minimum]);
  f.promotion("shufersal", "UNIT", { stores: all, items: [two], minQty: 1, discountedPrice: 900 });
  f.promotion("shufersal", "PAIR", { stores: all, items: [two], minQty: 2, discountedPrice: 1500 });
  f.promotion("shufersal", "HERE", { stores: [s1], items: [local], minQty: 1, discountedPrice: 500 });
  f.promotion("shufersal", "DEAR", { stores: all, items: [dear], minQty: 3, discountedPrice: 1000 });
  f.promotion("shufersal", "ENDED", { stores: all, items: [edge], minQty: 1, discountedPrice: 100, endsAt: "2026-11-22T12:00:00+02:00" });
  f.promotion("shufersal", "STARTS", { stores: all, items: [edge], minQty: 1, discountedPrice: 550, startsAt: "2026-11-22T12:00:00+02:00" });
  refreshChainProducts(ctx.db.prices);
  commitData(ctx.deps);
  key = newKey(ctx.deps, "pro").headers;
});

async function compare(body: unknown) {
  const res = await ctx.app.handle(
    new Request("http://localhost/api/v1/basket/compare", { method: "POST", headers: { ...key, "content-type": "application/json" }, body: JSON.stringify(body) }),
  );
  const json = (await res.json()) as any;
  if (res.status === 200) expect(BasketResponse.safeParse(json).success).toBe(true);
  return { status: res.status, body: json };
}

/** The one line of a one-item basket at Shufersal, chain-wide. */
async function line(barcode: string, quantity: number) {
  const { status, body } = await compare({ items: [{ barcode, quantity }], chain_ids: ["shufersal"] });
  expect(status).toBe(200);
  const chain = body.data.stores[0];
  expect(chain.items).toHaveLength(1);
  return { ...chain.items[0], total_ils: chain.total_ils, shelf_total_ils: chain.shelf_total_ils };
}

describe("basket promotions, by hand", () => {
  test.each([
    [1, "8.00", null], // below the minimum of 2
    [2, "12.00", "shufersal:RATE"], // exactly the minimum: 2 × 8.00 × 0.75
    [3, "20.00", "shufersal:RATE"], // one group of 2 (12.00) + 1 × 8.00
    [4, "24.00", "shufersal:RATE"], // two groups: 4 × 8.00 × 0.75
    [5, "32.00", "shufersal:RATE"], // the maximum of 4 caps it: 24.00 + 1 × 8.00
    [9, "64.00", "shufersal:RATE"], // 24.00 + 5 × 8.00
  ])("rate multi-buy: %i units → %s", async (quantity, total, promotion) => {
    const l = await line(RATE, quantity);
    expect(l.line_total_ils).toBe(total);
    expect(l.total_ils).toBe(total);
    expect(l.shelf_total_ils).toBe(((800 * quantity) / 100).toFixed(2));
    expect(l.unit_price_ils).toBe("8.00");
    expect(l.promotion_id).toBe(promotion);
  });

  test("not started, club-only, coupon and basket-minimum promotions are all left out", async () => {
    for (const quantity of [1, 2, 3]) {
      const l = await line(LATER, quantity);
      expect(l.line_total_ils).toBe(`${quantity * 10}.00`);
      expect(l.promotion_id).toBeNull();
    }
  });

  test("the cheaper of a unit price and a multi-buy wins per line", async () => {
    expect(await line(TWO, 1)).toMatchObject({ line_total_ils: "9.00", promotion_id: "shufersal:UNIT" }); // PAIR needs 2
    expect(await line(TWO, 2)).toMatchObject({ line_total_ils: "15.00", promotion_id: "shufersal:PAIR" }); // 15.00 < 2 × 9.00
    // PAIR: 15.00 + 9.90 = 24.90; UNIT: 3 × 9.00 = 27.00.
    expect(await line(TWO, 3)).toMatchObject({ line_total_ils: "24.90", promotion_id: "shufersal:PAIR" });
    // PAIR: 2 × 15.00 + 9.90 = 39.90; UNIT: 45.00.
    expect(await line(TWO, 5)).toMatchObject({ line_total_ils: "39.90", promotion_id: "shufersal:PAIR" });
  });

  test("a multi-buy dearer than the shelf price is not applied", async () => {
    expect(await line(DEAR, 3)).toMatchObject({ line_total_ils: "9.00", promotion_id: null });
  });

  test("a promotion's end is exclusive and its start inclusive", async () => {
    expect(await line(EDGE, 2)).toMatchObject({ line_total_ils: "11.00", promotion_id: "shufersal:STARTS" });
  });

  test("chain-wide, a promotion in fewer than half of the stores is left out; in a city its store is priced exactly", async () => {
    expect(await line(LOCAL, 2)).toMatchObject({ line_total_ils: "14.00", promotion_id: null }); // 1 of 3 stores
    const { body } = await compare({ items: [{ barcode: LOCAL, quantity: 2 }], city: "חיפה" });
    // Store 1: 2 × 5.00 = 10.00; store 2: 14.00 → store 1.
    expect(body.data.stores).toHaveLength(1);
    expect(body.data.stores[0]).toMatchObject({ chain_id: "shufersal", total_ils: "10.00", shelf_total_ils: "14.00", store: { store_id: "1", city: "חיפה", region: "haifa" } });
  });

  test("a whole basket: the lines' sum, exactly", async () => {
    const { body } = await compare({
      items: [
        { barcode: RATE, quantity: 5 }, // 32.00
        { barcode: LATER, quantity: 2 }, // 20.00
        { barcode: TWO, quantity: 3 }, // 24.90
        { barcode: LOCAL, quantity: 1 }, // 7.00
        { barcode: DEAR, quantity: 3 }, // 9.00
        { barcode: EDGE, quantity: 1 }, // 5.50
      ],
      chain_ids: ["shufersal"],
    });
    // 32.00 + 20.00 + 24.90 + 7.00 + 9.00 + 5.50 = 98.40; shelf 40.00 + 20.00 + 29.70 + 7.00 + 9.00 + 6.00 = 111.70.
    expect(body.data.stores[0]).toMatchObject({ total_ils: "98.40", shelf_total_ils: "111.70", items_found: 6, items_total: 6, missing_items: [] });
    expect(body.data.cheapest_store).toBe("shufersal");
  });
});

describe("basket in a city", () => {
  test("the city in another spelling or as its CBS code", async () => {
    for (const city of ["תל אביב", 'ת"א', "Tel Aviv", "5000"]) {
      const { body } = await compare({ items: [{ barcode: LOCAL, quantity: 1 }], city });
      expect(body.data.stores.map((s: any) => `${s.chain_id}/${s.store.store_id}`)).toEqual(["shufersal/3"]);
    }
  });

  test("a store without a known region is named with region null, never an empty string", async () => {
    const { body } = await compare({ items: [{ barcode: ROAD, quantity: 2 }, { barcode: LOCAL, quantity: 1 }], city: "כביש 6" });
    expect(body.data.cheapest_store).toBe("rami-levy");
    expect(body.data.stores).toEqual([
      {
        chain_id: "rami-levy",
        chain_name: "רמי לוי",
        total_ils: "9.00",
        shelf_total_ils: "9.00",
        club_total_ils: "9.00",
        coverage: 0.5,
        // LOCAL at the median of the chains selling it (its chain price: 7.00).
        estimated_total_ils: "16.00",
        estimated_items: [LOCAL],
        ranked: true,
        not_ranked_reason: null,
        suspect_items: [],
        items_found: 1,
        items_total: 2,
        items: [{ barcode: ROAD, name: "מים", quantity: 2, unit_price_ils: "4.50", line_total_ils: "9.00", promotion_id: null, suspect: false }],
        missing_items: [LOCAL],
        store: { store_id: "40", branch_name: "צומת", city: "כביש 6", region: null },
      },
    ]);
  });
});

describe("cached item pricing", () => {
  test("a basket priced before a promotion ends is priced again after it, without a new data version", async () => {
    let now = new Date("2026-11-22T10:00:00Z");
    const own = testApp({ now: () => now });
    const g = new Fixture(own.db.prices, own.chainIds);
    const store = g.store("shufersal", "1", { city: "חיפה", region: "haifa" });
    const tea = g.product("7290000000080", "תה");
    g.price(store, tea, 1000);
    g.promotion("shufersal", "TEA", { stores: [store], items: [tea], minQty: 1, discountedPrice: 800, endsAt: "2026-11-22T14:00:00+02:00" });
    refreshChainProducts(own.db.prices);
    commitData(own.deps);
    const ownKey = newKey(own.deps, "pro").headers;
    const total = async () => {
      const res = await own.app.handle(
        new Request("http://localhost/api/v1/basket/compare", {
          method: "POST",
          headers: { ...ownKey, "content-type": "application/json" },
          body: JSON.stringify({ items: [{ barcode: "7290000000080", quantity: 2 }] }),
        }),
      );
      return ((await res.json()) as any).data.stores[0].total_ils;
    };
    expect(await total()).toBe("16.00");
    expect(await total()).toBe("16.00"); // from the cache
    now = new Date("2026-11-22T12:00:01Z"); // 14:00:01 in Israel: over
    expect(await total()).toBe("20.00");
  });
});
