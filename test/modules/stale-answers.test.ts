import { beforeAll, describe, expect, test } from "bun:test";
import { testApp, commitData, get } from "../helpers/app.ts";
import { Fixture } from "../helpers/fixture.ts";
import { newKey } from "../helpers/keys.ts";
import { refreshChainProducts } from "../../src/db/chain-products.ts";
import { ColdBudget } from "../../src/serving/cold-budget.ts";

// Just after an import, a busy server (its cold-computation budget spent) answers from the
// previous data version while it recomputes: every such answer is the old data whole, and says so
// in meta.data_updated_at, Last-Modified and its ETag. Once recomputed, the new data is served.
// The budget's clock is the test's: "a second later" is a step of it, not a sleep.
let budgetClock = 0;
const ctx = testApp({ coldBudget: new ColdBudget(250, () => budgetClock) });
const f = new Fixture(ctx.db.prices, ctx.chainIds);
let key: Record<string, string>;
const MILK = "7290000066318";
const BREAD = "7290000066004";
let store: number;
let milk: number;

beforeAll(async () => {
  store = f.store("shufersal", "1");
  milk = f.product(MILK, "חלב 3% 1 ליטר");
  f.price(store, milk, 690);
  f.price(store, f.product(BREAD, "לחם אחיד"), 590);
  refreshChainProducts(ctx.db.prices);
  commitData(ctx.deps, "2026-11-22T05:00:00+02:00");
  key = newKey(ctx.deps, "pro").headers;
});

const call = (path: string) => get(ctx.app, path, key);

async function batch(barcodes: string[]) {
  const res = await ctx.app.handle(
    new Request("http://localhost/api/v1/prices/batch/", {
      method: "POST",
      headers: { "content-type": "application/json", ...key },
      body: JSON.stringify({ items: barcodes.map((barcode) => ({ barcode })) }),
    }),
  );
  return (await res.json()) as any;
}

describe("answers across a data version switch", () => {
  test("over budget: the previous version's answer whole, labelled as such; then the new one", async () => {
    const before = await call(`/api/v1/prices/?barcode=${MILK}`);
    expect(before.body.data.prices[0].price_ils).toBe("6.90");
    const oldTag = before.headers.get("etag")!;

    // An import changes the price and commits a new data version.
    ctx.db.prices.run("UPDATE price_current SET price = 590 WHERE product_id = ?", [milk]);
    refreshChainProducts(ctx.db.prices);
    commitData(ctx.deps, "2026-11-23T05:00:00+02:00");

    ctx.deps.pacing.coldBudget.spend(10_000); // the server is busy recomputing: no budget left this second
    const during = await call(`/api/v1/prices/?barcode=${MILK}`);
    expect(during.status).toBe(200);
    expect(during.body.data.prices[0].price_ils).toBe("6.90");
    expect(during.body.meta.data_updated_at).toBe("2026-11-22T05:00:00+02:00");
    expect(during.headers.get("etag")).toBe(oldTag);
    expect(during.headers.get("last-modified")).toBe(new Date("2026-11-22T05:00:00+02:00").toUTCString());

    budgetClock += 1_100; // a second later the budget frees up; the background recomputes
    await ctx.deps.pacing.revalidator.idle();
    const after = await call(`/api/v1/prices/?barcode=${MILK}`);
    expect(after.body.data.prices[0].price_ils).toBe("5.90");
    expect(after.body.meta.data_updated_at).toBe("2026-11-23T05:00:00+02:00");
    expect(after.headers.get("etag")).not.toBe(oldTag);
  });

  test("with budget to spare the new version is answered at once", async () => {
    budgetClock += 1_100;
    ctx.db.prices.run("UPDATE price_current SET price = 490 WHERE product_id = ?", [milk]);
    refreshChainProducts(ctx.db.prices);
    commitData(ctx.deps, "2026-11-24T05:00:00+02:00");
    const now = await call(`/api/v1/prices/?barcode=${MILK}`);
    expect(now.body.data.prices[0].price_ils).toBe("4.90");
    expect(now.body.meta.data_updated_at).toBe("2026-11-24T05:00:00+02:00");
  });

  test("a batch never mixes versions: an item held for the new data beside one the old data would answer, in either order, all of the new data", async () => {
    for (const [price, updatedAt, order] of [
      [390, "2026-11-25T05:00:00+02:00", [BREAD, MILK]],
      [290, "2026-11-26T05:00:00+02:00", [MILK, BREAD]],
    ] as const) {
      budgetClock += 1_100;
      await call(`/api/v1/prices/?barcode=${MILK}`); // held for the current data: the next version's stale answer
      ctx.db.prices.run("UPDATE price_current SET price = ? WHERE product_id = ?", [price, milk]);
      refreshChainProducts(ctx.db.prices);
      commitData(ctx.deps, updatedAt);
      expect((await call(`/api/v1/prices/?barcode=${BREAD}`)).body.meta.data_updated_at).toBe(updatedAt); // held for the new data
      ctx.deps.pacing.coldBudget.spend(10_000); // busy: /prices/ alone would answer milk from the previous data
      expect((await call(`/api/v1/prices/?barcode=${MILK}`)).body.meta.data_updated_at).not.toBe(updatedAt);

      const answer = await batch([...order]);
      expect(answer.meta.data_updated_at).toBe(updatedAt);
      const byBarcode = Object.fromEntries(answer.data.map((d: any) => [d.barcode, d.prices[0].price_ils]));
      expect(byBarcode).toEqual({ [MILK]: (price / 100).toFixed(2), [BREAD]: "5.90" });
    }
  });
});
