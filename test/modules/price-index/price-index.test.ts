import { beforeAll, describe, expect, test } from "bun:test";
import { testApp, commitData, get } from "../../helpers/app.ts";
import { Fixture } from "../../helpers/fixture.ts";
import { newKey } from "../../helpers/keys.ts";
import { refreshChainProducts } from "../../../src/db/chain-products.ts";
import { PriceIndexResponse } from "../../../src/modules/price-index/model.ts";

// now = 2026-11-22 (Israel). Five chains with data:
//   A shufersal, B rami-levy, C victory, D osher-ad carry P1–P4; E yochananof carries P1 only.
//   P6 is carried by A, B and E: 3 of 5 chains < 80 % (4 needed) → not in the basket.
//   Per product, B is 0.8 × the median chain price, A and C equal it, D 1.2 × it →
//   indexes B 80, A 100, C 100, D 120; E carries 1 of 4 basket products (25 % < 50 %) → no index.
//   B's prices dropped on 2026-11-08 (from the median price): its history is 100 until then, 80 from then.
//   Region haifa: one A store (0.9 × A's usual prices) and D's store.
const ctx = testApp();
const f = new Fixture(ctx.db.prices, ctx.chainIds);
let basic: Record<string, string>;
let free: Record<string, string>;
const BASE = { p1: 1000, p2: 500, p3: 200, p4: 1000 };

beforeAll(() => {
  const products = {
    p1: f.product("7290000000011", "מוצר 1"),
    p2: f.product("7290000000028", "מוצר 2"),
    p3: f.product("7290000000035", "מוצר 3"),
    p4: f.product("7290000000042", "מוצר 4"),
  };
  const p6 = f.product("7290000000066", "מוצר 6");
  const sell = (store: number, factor: number, keys: (keyof typeof BASE)[], dropOn?: string) => {
    for (const k of keys) {
      const price = Math.round(BASE[k] * factor);
      f.price(store, products[k], price);
      if (dropOn) {
        f.history(store, products[k], "2026-10-01T08:00:00+03:00", BASE[k]);
        f.history(store, products[k], `${dropOn}T07:00:00+02:00`, price);
      } else f.history(store, products[k], "2026-10-01T08:00:00+03:00", price);
    }
  };
  const all = ["p1", "p2", "p3", "p4"] as const;
  const a1 = f.store("shufersal", "1");
  const a2 = f.store("shufersal", "2");
  const ah = f.store("shufersal", "3", { city: "חיפה", region: "haifa" });
  sell(a1, 1, [...all]);
  sell(a2, 1, [...all]);
  sell(ah, 0.9, [...all]);
  const b1 = f.store("rami-levy", "1");
  sell(b1, 0.8, [...all], "2026-11-08");
  // An Eilat store (VAT-free) of B: left out of B's chain price.
  const be = f.store("rami-levy", "2", { city: "אילת", region: "south" });
  f.price(be, products.p1, 100);
  f.history(be, products.p1, "2026-10-01T08:00:00+03:00", 100);
  sell(f.store("victory", "1"), 1, [...all]);
  sell(f.store("osher-ad", "1", { city: "חיפה", region: "haifa" }), 1.2, [...all]);
  sell(f.store("yochananof", "1"), 1, ["p1"]);
  for (const [slug, store] of [["shufersal", a1], ["rami-levy", b1], ["yochananof", undefined]] as const) {
    const s = store ?? f.store(slug, "9");
    f.price(s, p6, 100);
  }
  refreshChainProducts(ctx.db.prices);
  commitData(ctx.deps);
  basic = newKey(ctx.deps, "basic").headers;
  free = newKey(ctx.deps, "free").headers;
});

const byChain = (data: any[]) => Object.fromEntries(data.map((c) => [c.chain_id, c]));

describe("GET /api/v1/chains/price-index/", () => {
  test("index 100 = the median chain, over the products 80 % of the chains carry; ranked from the cheapest", async () => {
    const { status, body } = await get(ctx.app, "/api/v1/chains/price-index/", basic);
    expect(status).toBe(200);
    expect(PriceIndexResponse.safeParse(body).success).toBe(true);
    expect(body.meta).toMatchObject({ basket_products: 4, chains_with_data: 5, basket_min_chains: 4, basket_chain_share: 0.8, min_index_coverage: 0.5, region: null, city: null, months: null, from: null });
    expect(body.data.map((c: any) => [c.chain_id, c.index, c.rank, c.products, c.coverage])).toEqual([
      ["rami-levy", 80, 1, 4, 1],
      ["shufersal", 100, 2, 4, 1],
      ["victory", 100, 3, 4, 1],
      ["osher-ad", 120, 4, 4, 1],
      // Too few basket products: listed, unranked.
      ["yochananof", null, null, 1, 0.25],
    ]);
    expect(body.data[0].history).toBeUndefined();
  });

  test("per region: the chain price of the region's stores", async () => {
    const { status, body } = await get(ctx.app, "/api/v1/chains/price-index/?region=haifa", basic);
    expect(status).toBe(200);
    expect(body.meta).toMatchObject({ basket_products: 4, chains_with_data: 2, basket_min_chains: 2, region: "haifa" });
    // Two chains: each product's median is the mean of 0.9 and 1.2 (× the base) = 1.05; the median chain sits between them.
    const a = 0.9 / 1.05;
    const d = 1.2 / 1.05;
    const mid = Math.sqrt(a * d);
    expect(body.data.map((c: any) => [c.chain_id, c.index, c.rank])).toEqual([
      ["shufersal", Math.round((a / mid) * 1000) / 10, 1],
      ["osher-ad", Math.round((d / mid) * 1000) / 10, 2],
    ]);
    const city = await get(ctx.app, `/api/v1/chains/price-index/?city=${encodeURIComponent("Haifa")}`, basic);
    expect(city.body.meta.city).toBe("חיפה");
    expect(city.body.data.map((c: any) => c.index)).toEqual(body.data.map((c: any) => c.index));
  });

  test("daily history over the months asked, replayed from price history (a price that dropped two weeks ago)", async () => {
    const { status, body } = await get(ctx.app, "/api/v1/chains/price-index/?months=1", basic);
    expect(status).toBe(200);
    expect(PriceIndexResponse.safeParse(body).success).toBe(true);
    expect(body.meta).toMatchObject({ months: 1, from: "2026-10-22" });
    const chains = byChain(body.data);
    const rami = chains["rami-levy"].history;
    expect(rami).toHaveLength(32); // 2026-10-22 … 2026-11-22
    expect(rami[0]).toEqual({ date: "2026-10-22", index: 100 });
    expect(rami.find((p: any) => p.date === "2026-11-07").index).toBe(100);
    expect(rami.find((p: any) => p.date === "2026-11-08").index).toBe(80);
    expect(rami.at(-1)).toEqual({ date: "2026-11-22", index: 80 });
    expect(chains["osher-ad"].history.every((p: any) => p.index === 120)).toBe(true);
    expect(chains["yochananof"].history.every((p: any) => p.index === null)).toBe(true);
    // The last day agrees with today's index.
    for (const c of body.data) expect(c.history.at(-1).index).toBe(c.index);
    const longer = await get(ctx.app, "/api/v1/chains/price-index/?months=24", basic);
    expect(longer.body.meta.from).toBe("2024-11-22");
    expect(byChain(longer.body.data)["rami-levy"].history[0]).toEqual({ date: "2024-11-22", index: null });
  });

  test("errors and plan", async () => {
    expect((await get(ctx.app, "/api/v1/chains/price-index/", free)).body.code).toBe("plan_upgrade_required");
    const months = await get(ctx.app, "/api/v1/chains/price-index/?months=25", basic);
    expect([months.status, months.body.code, months.body.param]).toEqual([400, "invalid_parameter", "months"]);
    const region = await get(ctx.app, "/api/v1/chains/price-index/?region=atlantis", basic);
    expect([region.status, region.body.param]).toEqual([400, "region"]);
    const city = await get(ctx.app, `/api/v1/chains/price-index/?city=${encodeURIComponent("עיר שאיננה")}`, basic);
    expect([city.status, city.body.code]).toEqual([404, "city_not_found"]);
  });
});
