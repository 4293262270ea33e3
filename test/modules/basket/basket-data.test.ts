import { beforeAll, describe, expect, test } from "bun:test";
import { testApp, commitData } from "../../helpers/app.ts";
import { Fixture } from "../../helpers/fixture.ts";
import { newKey } from "../../helpers/keys.ts";
import { BasketResponse } from "../../../src/modules/basket/model.ts";

// Basket pricing keeps product rows, chain figures, promotion items and promotion stores per data
// version: answers must still follow the clock (promotion dates) and new data versions.
let clock = new Date("2026-11-22T10:00:00Z"); // 12:00 Israel time
const ctx = testApp({ now: () => clock });
const f = new Fixture(ctx.db.prices, ctx.chainIds);
let key: Record<string, string>;
let milk = 0;
let stores: number[] = [];

beforeAll(async () => {
  stores = ["1", "2", "3"].map((code) => f.store("shufersal", code, { city: "חיפה" }));
  milk = f.product("7290000066318", "חלב");
  for (const s of stores) f.price(s, milk, 700);
  // 2 for 10.00 from 13:00 to 14:00, in 2 of the 3 stores (at least half: applies chain-wide).
  f.promotion("shufersal", "P", { stores: stores.slice(0, 2), items: [milk], minQty: 2, discountedPrice: 1000, startsAt: "2026-11-22T13:00:00+02:00", endsAt: "2026-11-22T14:00:00+02:00" });
  ctx.db.prices.run("INSERT INTO chain_products (chain_id, barcode, product_id, store_count, price_min, price_max, price_mode) VALUES (?, '7290000066318', ?, 3, 700, 700, 700)", [
    f.chainId("shufersal"),
    milk,
  ]);
  commitData(ctx.deps);
  key = newKey(ctx.deps, "pro").headers;
});

async function total(body: object): Promise<string> {
  const res = await ctx.app.handle(
    new Request("http://localhost/api/v1/basket/compare/", { method: "POST", headers: { ...key, "content-type": "application/json" }, body: JSON.stringify(body) }),
  );
  expect(res.status).toBe(200);
  const json = (await res.json()) as any;
  // The route documents its schema without validating each answer: check it here.
  expect(BasketResponse.safeParse(json).success).toBe(true);
  return json.data.stores[0].total_ils;
}

describe("basket data kept per data version", () => {
  test("promotions start and end by the clock, chain-wide and in a city", async () => {
    const chainWide = { items: [{ barcode: "7290000066318", quantity: 2 }] };
    const inCity = { ...chainWide, city: "חיפה" };
    clock = new Date("2026-11-22T10:00:00Z");
    expect(await total(chainWide)).toBe("14.00");
    expect(await total(inCity)).toBe("14.00");
    clock = new Date("2026-11-22T11:30:00Z"); // 13:30: running
    expect(await total(chainWide)).toBe("10.00");
    expect(await total(inCity)).toBe("10.00");
    clock = new Date("2026-11-22T12:00:00Z"); // 14:00: ended
    expect(await total(chainWide)).toBe("14.00");
    expect(await total(inCity)).toBe("14.00");
  });

  test("a new data version is read afresh (prices, chain figures and promotion stores)", async () => {
    clock = new Date("2026-11-22T11:30:00Z");
    const inCity = { items: [{ barcode: "7290000066318", quantity: 2 }], city: "חיפה" };
    expect(await total(inCity)).toBe("10.00");
    ctx.db.prices.run("UPDATE price_current SET price = 600 WHERE product_id = ?", [milk]);
    ctx.db.prices.run("UPDATE chain_products SET price_mode = 600 WHERE product_id = ?", [milk]);
    ctx.db.prices.run("DELETE FROM promotion_stores WHERE store_id = ?", [stores[1]]);
    ctx.db.prices.run("UPDATE price_current SET price = 450 WHERE store_id = ?", [stores[2]]);
    commitData(ctx.deps);
    // Haifa: store 3 at 4.50 × 2 = 9.00 beats store 1's 2 for 10.00.
    expect(await total(inCity)).toBe("9.00");
    // Chain-wide: 6.00 × 2; the promotion now runs in 1 of 3 stores (less than half): not applied.
    expect(await total({ items: [{ barcode: "7290000066318", quantity: 2 }] })).toBe("12.00");
  });
});
