import { describe, expect, test } from "bun:test";
import { testApp, commitData } from "../helpers/app.ts";
import { Fixture } from "../helpers/fixture.ts";
import { chainSummary } from "../../src/pricing/chain-summary.ts";
import { chainEntry, requireProduct, type PriceQuery } from "../../src/modules/prices/service.ts";
import { chainFigures, sortChains, storeFigures } from "../../src/pricing/figures.ts";
import { productPromotions } from "../../src/pricing/queries.ts";
import { seeded } from "../../bench/lib/rng.ts";

// chainSummary (grouped in SQLite) must give exactly what chainFigures gives over every store's
// row: on random data with ties, Eilat stores, stores without a city, all promotion kinds and
// the filters of /prices/.
const CITIES = ["חיפה", "ירושלים", "אילת", "תל אביב-יפו", null] as const;
const REGIONS: Record<string, string> = { "חיפה": "haifa", "ירושלים": "jerusalem", "אילת": "south", "תל אביב-יפו": "tel-aviv" };

const seen = { promoted: 0, eilatOnly: 0, chains: 0 };

describe("chainSummary agrees with chainFigures", () => {
  for (let seed = 1; seed <= 12; seed++) {
    test(`random data, seed ${seed}`, () => {
      const rnd = seeded(seed * 7919);
      const pick = <T>(list: readonly T[]) => list[Math.floor(rnd() * list.length)]!;
      const now = new Date("2026-11-22T10:00:00Z");
      const ctx = testApp({ now: () => now });
      const f = new Fixture(ctx.db.prices, ctx.chainIds);
      const chains = ["shufersal", "rami-levy", "victory", "yochananof"];
      const products = [1, 2, 3].map((i) => f.product(`729000000000${i}`, `מוצר ${i}`, { sizeAmount: 500, sizeUnit: "g" }));
      const stores: { id: number; chain: string }[] = [];
      for (const chain of chains) {
        const count = 1 + Math.floor(rnd() * 8);
        for (let n = 1; n <= count; n++) {
          const city = pick(CITIES);
          const id = f.store(chain, String(n), { city: city ?? undefined, region: city ? REGIONS[city] : undefined });
          if (city === null) ctx.db.prices.run("UPDATE stores SET city = NULL, region = NULL WHERE id = ?", [id]);
          if (rnd() < 0.3) ctx.db.prices.run("UPDATE stores SET prices_at = NULL WHERE id = ?", [id]);
          stores.push({ id, chain });
        }
      }
      for (const product of products) {
        for (const s of stores) {
          if (rnd() < 0.2) continue;
          f.price(s.id, product, pick([490, 490, 500, 520, 550, 590]), `2026-11-${10 + Math.floor(rnd() * 10)}T08:00:00+02:00`);
        }
      }
      let code = 0;
      for (let k = 0; k < 10; k++) {
        const chain = pick(chains);
        const inChain = stores.filter((s) => s.chain === chain && rnd() < 0.7).map((s) => s.id);
        if (inChain.length === 0) continue;
        const kind = rnd();
        f.promotion(chain, `P${++code}`, {
          stores: inChain,
          items: products.filter(() => rnd() < 0.6),
          minQty: kind < 0.6 ? 1 : 2 + Math.floor(rnd() * 2),
          discountedPrice: kind < 0.8 ? pick([300, 450, 480, 495, 600]) : undefined,
          discountRate: kind >= 0.8 ? pick([0.1, 0.25, 1]) : undefined,
          clubOnly: rnd() < 0.15,
          coupon: rnd() < 0.1,
          startsAt: pick(["2026-11-01T00:00:00+02:00", "2026-11-23T00:00:00+02:00"]),
          endsAt: pick(["2026-12-31T23:59:00+02:00", "2026-11-20T00:00:00+02:00", "2026-11-22T13:00:00+02:00"]),
        });
      }
      // Per-item overrides on some items.
      ctx.db.prices.run("UPDATE promotion_items SET discounted_price = 470 WHERE (promotion_id + product_id) % 3 = 0");
      commitData(ctx.deps);

      const queries: PriceQuery[] = [{}, { chainId: "shufersal" }, { city: "חיפה" }, { city: "אילת" }, { region: "jerusalem" }, { chainId: "rami-levy", region: "haifa" }];
      for (const product of products) {
        const row = requireProduct(ctx.deps.dataSets.live, `729000000000${products.indexOf(product) + 1}`);
        for (const query of queries) {
          const expected = chainFigures(storeFigures(ctx.deps.dataSets.live, row, query)).map((c) => chainEntry(c, row));
          const { chains: fast, validUntil } = chainSummary(ctx.deps.dataSets.live, row, query, now);
          expect(sortChains(fast).map((c) => chainEntry(c, row))).toEqual(expected);
          seen.chains += expected.length;
          seen.promoted += expected.filter((e) => e.is_on_promotion).length;
          seen.eilatOnly += expected.filter((e) => !e.vat_included).length;
          expect(validUntil).toBe(productPromotions(ctx.db.prices, row.id, now).validUntil);
        }
      }
    });
  }
});

test("the random data covered promoted chains and Eilat-only chains", () => {
  expect(seen.chains).toBeGreaterThan(200);
  expect(seen.promoted).toBeGreaterThan(10);
  expect(seen.eilatOnly).toBeGreaterThan(5);
});
