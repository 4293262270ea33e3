import { beforeAll, describe, expect, test } from "bun:test";
import { testApp, commitData } from "../../helpers/app.ts";
import { Fixture } from "../../helpers/fixture.ts";
import { newKey } from "../../helpers/keys.ts";
import { refreshChainProducts } from "../../../src/db/chain-products.ts";
import { PlanResponse } from "../../../src/modules/basket/plan-model.ts";
import { planStores } from "../../../src/pricing/store-plan.ts";

// Around a point in Tel Aviv; line totals (agorot) per store, milk × 2:
//   A shufersal 1 km: milk 1000, bread 900, eggs 1500, water 300
//   B rami-levy 2 km: milk 800 (shelf 6.00, its "2 for 8.00" qualifies), bread 600, eggs 1600
//   C victory 3 km:   milk 1400, bread 700, eggs 1000, cheese 2000
//   D yochananof 20 km (outside 5 km) sells everything at 0.01.
const ctx = testApp();
const f = new Fixture(ctx.db.prices, ctx.chainIds);
let pro: Record<string, string>;
let basic: Record<string, string>;
const AT = { lat: 32.0853, lon: 34.7818 };
const CODES = { milk: "7290000000011", bread: "7290000000028", eggs: "7290000000035", cheese: "7290000000042", water: "7290000000059" };
const UNKNOWN = "9999999999999";

function placed(slug: string, km: number) {
  const id = f.store(slug, "1");
  ctx.db.prices.run("UPDATE stores SET latitude = ?, longitude = ?, store_type = 1 WHERE id = ?", [AT.lat + km * 0.008993, AT.lon, id]);
  return id;
}

beforeAll(() => {
  const p = Object.fromEntries(Object.entries(CODES).map(([k, code]) => [k, f.product(code, k)])) as Record<keyof typeof CODES, number>;
  const a = placed("shufersal", 1);
  const b = placed("rami-levy", 2);
  const c = placed("victory", 3);
  const d = placed("yochananof", 20);
  f.price(a, p.milk, 500); f.price(a, p.bread, 900); f.price(a, p.eggs, 1500); f.price(a, p.water, 300);
  f.price(b, p.milk, 600); f.price(b, p.bread, 600); f.price(b, p.eggs, 1600);
  f.promotion("rami-levy", "M2", { stores: [b], items: [p.milk], minQty: 2, discountedPrice: 800, description: "2 ב-8" });
  f.price(c, p.milk, 700); f.price(c, p.bread, 700); f.price(c, p.eggs, 1000); f.price(c, p.cheese, 2000);
  for (const id of Object.values(p)) f.price(d, id, 1);
  refreshChainProducts(ctx.db.prices);
  commitData(ctx.deps);
  pro = newKey(ctx.deps, "pro").headers;
  basic = newKey(ctx.deps, "basic").headers;
});

async function plan(body: unknown, key = pro) {
  const res = await ctx.app.handle(new Request("http://localhost/api/v1/basket/plan/", { method: "POST", headers: { ...key, "content-type": "application/json" }, body: JSON.stringify(body) }));
  return { status: res.status, body: (await res.json()) as any };
}

const items = (...names: (keyof typeof CODES)[]) => [...names.map((n) => ({ barcode: CODES[n], quantity: n === "milk" ? 2 : 1 })), { barcode: UNKNOWN, quantity: 1 }];
const near = { near: `${AT.lat},${AT.lon}`, radius_km: 5 };
const split = (data: any) => data.stores.map((s: any) => [s.chain_id, s.items.map((l: any) => l.name), s.total_ils]);

describe("POST /api/v1/basket/plan/", () => {
  test("two stores: each item at the cheaper of the pair, against the best single store", async () => {
    const { status, body } = await plan({ items: items("milk", "bread", "eggs", "cheese"), ...near, max_stores: 2 });
    expect(status).toBe(200);
    expect(PlanResponse.safeParse(body).success).toBe(true);
    // Only C sells cheese: the best single store is C (4 items, 51.00); {B, C} = 8 + 6 + 10 + 20 = 44.00.
    expect(split(body.data)).toEqual([
      ["rami-levy", ["milk", "bread"], "14.00"],
      ["victory", ["eggs", "cheese"], "30.00"],
    ]);
    expect(body.data).toMatchObject({ total_ils: "44.00", saving_ils: "7.00", missing_items: [UNKNOWN], unassigned_items: [], exact: true, lower_bound_ils: "44.00", stores_considered: 3 });
    expect(body.data.best_single_store).toMatchObject({ chain_id: "victory", total_ils: "51.00", items_found: 4, distance_km: 3 });
    // The multi-buy applies where the whole quantity is bought.
    expect(body.data.stores[0].items[0]).toMatchObject({ quantity: 2, unit_price_ils: "6.00", line_total_ils: "8.00", promotion_id: "rami-levy:M2" });
    expect(body.data.stores[0].store.store_id).toBe("1");
  });

  test("a third store that would buy nothing is dropped; max_stores 1 is the best single store", async () => {
    const three = await plan({ items: items("milk", "bread", "eggs", "cheese"), ...near, max_stores: 3 });
    expect(split(three.body.data).map((s: any) => s[0])).toEqual(["rami-levy", "victory"]);
    const one = await plan({ items: items("milk", "bread", "eggs", "cheese"), ...near, max_stores: 1 });
    expect(split(one.body.data)).toEqual([["victory", ["milk", "bread", "eggs", "cheese"], "51.00"]]);
    expect(one.body.data.saving_ils).toBe("0.00");
  });

  test("coverage first: items the chosen stores cannot cover are unassigned; savings only over the same items", async () => {
    // A and C each sell 4 of the 5; A is cheaper (37.00): cheese stays unassigned.
    const one = await plan({ items: items("milk", "bread", "eggs", "cheese", "water"), ...near, max_stores: 1 });
    expect(one.body.data).toMatchObject({ total_ils: "37.00", unassigned_items: [CODES.cheese] });
    // Two stores must be A (water) and C (cheese): 10 + 7 + 10 + 20 + 3 = 50.00, covering more than A alone.
    const two = await plan({ items: items("milk", "bread", "eggs", "cheese", "water"), ...near, max_stores: 2 });
    expect(two.body.data).toMatchObject({ total_ils: "50.00", unassigned_items: [], saving_ils: null });
    expect(two.body.data.best_single_store.chain_id).toBe("shufersal");
    // Three: B's milk and bread too: 8 + 6 + 10 + 20 + 3 = 47.00.
    const three = await plan({ items: items("milk", "bread", "eggs", "cheese", "water"), ...near, max_stores: 3 });
    expect(three.body.data.total_ils).toBe("47.00");
  });

  test("min_coverage leaves small stores out; errors and plan", async () => {
    const covered = await plan({ items: items("milk", "bread", "eggs", "cheese"), ...near, max_stores: 2, min_coverage: 0.8 });
    expect(covered.body.data).toMatchObject({ stores_considered: 1, total_ils: "51.00" });
    const bad = await plan({ items: items("milk"), ...near, max_stores: 4 });
    expect([bad.status, bad.body.param]).toEqual([400, "max_stores"]);
    const noNear = await plan({ items: items("milk"), max_stores: 2 });
    expect([noNear.status, noNear.body.param]).toEqual([400, "near"]);
    expect((await plan({ items: items("milk"), ...near, max_stores: 2 }, basic)).body.code).toBe("plan_upgrade_required");
  });
});

describe("planStores", () => {
  test("exact against brute force on random matrices", () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    for (let round = 0; round < 40; round++) {
      const m = 2 + Math.floor(random() * 12);
      const n = 1 + Math.floor(random() * 8);
      const costs = Array.from({ length: m }, () => Float64Array.from({ length: n }, () => (random() < 0.25 ? Infinity : 100 + Math.floor(random() * 900))));
      for (const k of [1, 2, 3]) {
        const got = planStores(costs, k, n);
        let best = [-1, Infinity];
        const sets: number[][] = [];
        for (let a = 0; a < m; a++) {
          sets.push([a]);
          for (let b = a + 1; b < m; b++) {
            if (k >= 2) sets.push([a, b]);
            for (let c = b + 1; c < m && k >= 3; c++) sets.push([a, b, c]);
          }
        }
        for (const set of sets) {
          let covered = 0;
          let total = 0;
          for (let i = 0; i < n; i++) {
            const v = Math.min(...set.map((s) => costs[s]![i]!));
            if (v !== Infinity) (covered++, (total += v));
          }
          if (covered > best[0]! || (covered === best[0] && total < best[1]!)) best = [covered, total];
        }
        expect([got.covered, got.total, got.exact]).toEqual([best[0]!, best[1]!, true]);
        expect(got.stores.length).toBeLessThanOrEqual(k);
      }
    }
  });
});
