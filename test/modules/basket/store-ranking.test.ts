import { beforeAll, describe, expect, test } from "bun:test";
import { testApp, commitData } from "../../helpers/app.ts";
import { Fixture } from "../../helpers/fixture.ts";
import { newKey } from "../../helpers/keys.ts";
import { refreshChainProducts } from "../../../src/db/chain-products.ts";
import { BasketStoresResponse } from "../../../src/modules/basket/store-model.ts";

// Stores around a point in Tel Aviv (32.0853, 34.7818); 0.009° of latitude ≈ 1 km.
//   S1 shufersal 1 km: milk 6.00, bamba 5.00 with its own "3 for 10", bread 7.00 → 2 × 6 + 10 + 7 = 29.00
//   S2 shufersal 2 km: milk 6.50, bamba 5.00 (the promotion is S1's list only), bread 7.00 → 35.00
//   Q1 victory 3 km: milk 6.00, bamba 5.00, bread 7.00 → 34.00
//   R1 rami-levy 0.5 km: milk 5.50, bamba 4.50, no bread → 24.50 for 2 of the 4 items (coverage 0.5)
//   R2 rami-levy 20 km (outside 5 km), cheapest of all; V1 victory closed; Y1 yochananof online only: never ranked.
const ctx = testApp();
const f = new Fixture(ctx.db.prices, ctx.chainIds);
let key: Record<string, string>;
const MILK = "7290000066318";
const BAMBA = "7290000066004";
const BREAD = "7290000066028";
const UNKNOWN = "9999999999999";
const AT = { lat: 32.0853, lon: 34.7818 };

function placed(slug: string, code: string, km: number, opts: { city?: string; closed?: boolean; online?: boolean } = {}) {
  const id = f.store(slug, code, { city: opts.city ?? "תל אביב-יפו", region: opts.city ? "haifa" : "tel-aviv" });
  ctx.db.prices.run("UPDATE stores SET latitude = ?, longitude = ?, store_type = ?, closed_at = ? WHERE id = ?", [
    AT.lat + km * 0.008993,
    AT.lon,
    opts.online ? 2 : 1,
    opts.closed ? "2026-11-01T00:00:00+02:00" : null,
    id,
  ]);
  return id;
}

beforeAll(() => {
  const milk = f.product(MILK, "חלב");
  const bamba = f.product(BAMBA, "במבה");
  const bread = f.product(BREAD, "לחם");
  const sell = (store: number, prices: [number, number][]) => prices.forEach(([p, a]) => f.price(store, p, a));
  const s1 = placed("shufersal", "1", 1);
  sell(s1, [[milk, 600], [bamba, 500], [bread, 700]]);
  sell(placed("shufersal", "2", 2), [[milk, 650], [bamba, 500], [bread, 700]]);
  f.promotion("shufersal", "B3", { stores: [s1], items: [bamba], minQty: 3, discountedPrice: 1000, description: "3 ב-10" });
  sell(placed("victory", "1", 3), [[milk, 600], [bamba, 500], [bread, 700]]);
  sell(placed("rami-levy", "1", 0.5), [[milk, 550], [bamba, 450]]);
  sell(placed("rami-levy", "2", 20, { city: "חיפה" }), [[milk, 100], [bamba, 100], [bread, 100]]);
  sell(placed("victory", "2", 1, { closed: true }), [[milk, 100], [bamba, 100], [bread, 100]]);
  sell(placed("yochananof", "1", 1, { online: true }), [[milk, 100], [bamba, 100], [bread, 100]]);
  refreshChainProducts(ctx.db.prices);
  commitData(ctx.deps);
  key = newKey(ctx.deps, "pro").headers;
});

async function compare(body: unknown) {
  const res = await ctx.app.handle(new Request("http://localhost/api/v1/basket/compare/", { method: "POST", headers: { ...key, "content-type": "application/json" }, body: JSON.stringify(body) }));
  return { status: res.status, body: (await res.json()) as any };
}

const ITEMS = [
  { barcode: MILK, quantity: 2 },
  { barcode: BAMBA, quantity: 3 },
  { barcode: BREAD, quantity: 1 },
  { barcode: UNKNOWN, quantity: 1 },
];
const NEAR = { items: ITEMS, granularity: "store", near: `${AT.lat},${AT.lon}`, radius_km: 5 };
const row = (s: any) => [s.chain_id, s.store.store_id, s.total_ils, s.items_found, s.coverage];

describe("POST /api/v1/basket/compare/ with granularity store", () => {
  test("open walk-in stores within the radius, each priced exactly, ranked by items then total", async () => {
    const { status, body } = await compare(NEAR);
    expect(status).toBe(200);
    expect(BasketStoresResponse.safeParse(body).success).toBe(true);
    expect(body.data.stores.map(row)).toEqual([
      ["shufersal", "1", "29.00", 3, 0.75],
      ["victory", "1", "34.00", 3, 0.75],
      ["shufersal", "2", "35.00", 3, 0.75],
      ["rami-levy", "1", "24.50", 2, 0.5],
    ]);
    expect(body.data).toMatchObject({ granularity: "store", cheapest_store: { chain_id: "shufersal", store_id: "1" }, stores_compared: 4, missing_items: [UNKNOWN] });
    const [s1] = body.data.stores;
    expect(s1.store).toMatchObject({ store_id: "1", city: "תל אביב-יפו", distance_km: 1 });
    expect(s1.shelf_total_ils).toBe("34.00");
    // The store's own multi-buy promotion where the quantity qualifies.
    expect(s1.items[1]).toEqual({ barcode: BAMBA, name: "במבה", quantity: 3, unit_price_ils: "5.00", line_total_ils: "10.00", promotion_id: "shufersal:B3", suspect: false });
    expect(s1.missing_items).toEqual([UNKNOWN]);
  });

  test("min_coverage leaves stores out; limit cuts the list", async () => {
    const covered = await compare({ ...NEAR, min_coverage: 0.6 });
    expect(covered.body.data.stores.map((s: any) => s.chain_id + s.store.store_id)).toEqual(["shufersal1", "victory1", "shufersal2"]);
    expect(covered.body.data.stores_compared).toBe(3);
    const limited = await compare({ ...NEAR, limit: 2 });
    expect(limited.body.data.stores).toHaveLength(2);
    expect(limited.body.data.stores_compared).toBe(4);
    const none = await compare({ ...NEAR, min_coverage: 1 });
    expect(none.body.data).toMatchObject({ cheapest_store: null, stores: [], stores_compared: 0 });
  });

  test("a city: its open stores, without distances; chain_ids filter", async () => {
    const { body } = await compare({ items: ITEMS, granularity: "store", city: "חיפה" });
    expect(body.data.stores.map(row)).toEqual([["rami-levy", "2", "6.00", 3, 0.75]]);
    expect(body.data.stores[0].store.distance_km).toBeUndefined();
    const only = await compare({ ...NEAR, chain_ids: ["rami-levy"] });
    expect(only.body.data.stores.map(row)).toEqual([["rami-levy", "1", "24.50", 2, 0.5]]);
  });

  test("without near or city: 400 naming near; limits validated", async () => {
    const bare = await compare({ items: ITEMS, granularity: "store" });
    expect([bare.status, bare.body.code, bare.body.param]).toEqual([400, "invalid_parameter", "near"]);
    const limit = await compare({ ...NEAR, limit: 51 });
    expect([limit.status, limit.body.param]).toEqual([400, "limit"]);
    const coverage = await compare({ ...NEAR, min_coverage: 1.5 });
    expect([coverage.status, coverage.body.param]).toEqual([400, "min_coverage"]);
  });
});
