import { refreshChainProducts } from "../../../src/db/chain-products.ts";
import { commitData, type testApp } from "../app.ts";
import { Fixture } from "../fixture.ts";

/** Milk of the explorer's data: sold by four chains (six stores), its price history over two months. */
export const EXPLORE_MILK = "7290000000011";

/**
 * Data for the product explorer (now = 2026-11-22): four chains carry four shared products (a
 * common basket, so the price index has entries), milk's prices changed on 2026-10-15 and
 * 2026-11-08 at two chains, one store of Victory runs a promotion-free lower price in Haifa.
 * Committed and searchable when the promise settles.
 */
export async function importExploreData(ctx: ReturnType<typeof testApp>): Promise<void> {
  const f = new Fixture(ctx.db.prices, ctx.chainIds);
  const products = [
    f.product(EXPLORE_MILK, "חלב תנובה 3% 1 ליטר", { manufacturer: "תנובה", sizeAmount: 1000, sizeUnit: "ml" }),
    f.product("7290000000028", "לחם אחיד פרוס", { manufacturer: "אנג'ל" }),
    f.product("7290000000035", "במבה 80 גרם", { manufacturer: "אסם", sizeAmount: 80, sizeUnit: "g" }),
    f.product("7290000000042", "קוטג' 5% 250 גרם", { manufacturer: "תנובה", sizeAmount: 250, sizeUnit: "g" }),
  ];
  const base = [690, 800, 450, 590];
  const chains: [string, number, { city: string; region: string }[]][] = [
    ["shufersal", 1.05, [{ city: "תל אביב-יפו", region: "center" }, { city: "חיפה", region: "haifa" }]],
    ["rami-levy", 0.9, [{ city: "ירושלים", region: "jerusalem" }]],
    ["victory", 1, [{ city: "חיפה", region: "haifa" }, { city: "באר שבע", region: "south" }]],
    ["osher-ad", 0.95, [{ city: "בני ברק", region: "center" }]],
  ];
  for (const [slug, factor, stores] of chains) {
    stores.forEach((where, n) => {
      const store = f.store(slug, String(n + 1), { ...where, name: `${where.city} ${n + 1}` });
      products.forEach((product, k) => {
        const price = Math.round(base[k]! * factor) + n * 10;
        f.history(store, product, "2026-09-01T08:00:00+03:00", price + 40);
        if (k === 0 && slug !== "victory") f.history(store, product, "2026-10-15T08:00:00+03:00", price + 20);
        if (k === 0 && (slug === "rami-levy" || slug === "shufersal")) f.history(store, product, "2026-11-08T07:00:00+02:00", price);
        f.price(store, product, k === 0 && slug !== "rami-levy" && slug !== "shufersal" ? price + (slug === "victory" ? 40 : 20) : price);
      });
    });
  }
  refreshChainProducts(ctx.db.prices);
  commitData(ctx.deps);
  await ctx.deps.search.rebuild(ctx.db.prices);
}
