import { beforeAll, expect, test } from "bun:test";
import { testApp, commitData } from "../../helpers/app.ts";
import { Fixture } from "../../helpers/fixture.ts";
import { refreshChainProducts } from "../../../src/db/chain-products.ts";
import { computePriceIndex } from "../../../src/modules/price-index/service.ts";
import { referencePriceIndex } from "./reference-index.ts";

// A generated data set (seeded): 8 chains of 5 stores in three regions, some in Eilat; shared and
// chain-internal products; per store and product a history of 1–6 changes from before the
// 24-month window to after today (ignored), few distinct prices (tied modes), removals (null) and
// two changes on one day. The faster computation must give the reference's answers exactly.
const ctx = testApp();
const f = new Fixture(ctx.db.prices, ctx.chainIds);

function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

beforeAll(() => {
  const rnd = random(46);
  const pick = <T>(values: readonly T[]) => values[Math.floor(rnd() * values.length)]!;
  const chains = [...ctx.chainIds.keys()].slice(0, 8);
  const places = [{ city: "תל אביב-יפו", region: "tel-aviv" }, { city: "חיפה", region: "haifa" }, { city: "אילת", region: "south" }, { city: "באר שבע", region: "south" }];
  const stores = chains.flatMap((slug) => [1, 2, 3, 4, 5].map((n) => f.store(slug, String(n), pick(places))));
  const products = Array.from({ length: 40 }, (_, i) => f.product(`72900000${String(10_000 + i).padStart(5, "0")}`, `מוצר ${i}`));
  products.push(...chains.slice(0, 3).map((slug, i) => f.product(String(500 + i), `פנימי ${i}`, { scopeChain: slug })));
  const day = () => new Date(Date.UTC(2024, 5, 1) + Math.floor(rnd() * 910) * 86_400_000).toISOString().slice(0, 10);
  for (const store of stores) {
    for (const product of products) {
      if (rnd() < 0.15) continue;
      const dates = Array.from({ length: 1 + Math.floor(rnd() * 6) }, day).sort();
      if (rnd() < 0.2) dates.push(dates.at(-1)!); // two changes on one day
      let last: number | null = null;
      dates.forEach((date, k) => {
        const price = k > 0 && rnd() < 0.15 ? null : pick([500, 520, 540, 560, 600]);
        f.history(store, product, `${date}T${String(6 + k).padStart(2, "0")}:00:00+02:00`, price);
        last = price;
      });
      if (last !== null) f.price(store, product, last);
    }
  }
  refreshChainProducts(ctx.db.prices);
  commitData(ctx.deps);
});

test("equal to the reference computation in every scope, with and without history", () => {
  const live = ctx.deps.dataSets.live;
  for (const scope of [{}, { region: "south" }, { region: "haifa" }, { city: "אילת" }, { city: "תל אביב-יפו" }]) {
    for (const withHistory of [false, true]) {
      const fast = computePriceIndex(live, scope, withHistory);
      expect(fast.entries.length).toBeGreaterThan(0);
      expect(fast).toEqual(referencePriceIndex(live, scope, withHistory));
    }
  }
  // The data is not degenerate: indexes differ, and histories move.
  const { entries } = computePriceIndex(live, {}, true);
  expect(new Set(entries.map((e) => e.index)).size).toBeGreaterThan(2);
  expect(new Set(entries[0]!.history!.map((p) => p.index)).size).toBeGreaterThan(2);
});
