import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testApp, commitData, get } from "../../helpers/app.ts";
import { Fixture } from "../../helpers/fixture.ts";
import { newKey } from "../../helpers/keys.ts";
import { openDataDir } from "../../../src/db/open.ts";
import { refreshChainProducts } from "../../../src/db/chain-products.ts";
import { fullPriceIndex } from "../../../src/modules/price-index/service.ts";
import { priceIndexAnswer, workerSlots } from "../../../src/modules/price-index/off-thread.ts";

// A file-backed data dir: the index is computed in a worker (in-memory databases compute it inline).
// Three chains, two products everywhere; B dropped its prices on 2026-11-08 (now = 2026-11-22).
const dir = mkdtempSync(join(tmpdir(), "mehir-price-index-"));
const ctx = testApp({ db: openDataDir(dir) });
const f = new Fixture(ctx.db.prices, ctx.chainIds);
let basic: Record<string, string>;

beforeAll(() => {
  const products = [f.product("7290000000011", "מוצר 1"), f.product("7290000000028", "מוצר 2")];
  const sell = (slug: string, code: string, factor: number, options: { city?: string; region?: string } = {}, dropOn?: string) => {
    const store = f.store(slug, code, options);
    products.forEach((p, i) => {
      const base = (i + 1) * 500;
      const price = Math.round(base * factor);
      f.price(store, p, price);
      f.history(store, p, "2026-10-01T08:00:00+03:00", dropOn ? base : price);
      if (dropOn) f.history(store, p, `${dropOn}T07:00:00+02:00`, price);
    });
  };
  sell("shufersal", "1", 1);
  sell("shufersal", "2", 0.9, { city: "חיפה", region: "haifa" });
  sell("rami-levy", "1", 0.8, {}, "2026-11-08");
  sell("victory", "1", 1.1, { city: "חיפה", region: "haifa" });
  refreshChainProducts(ctx.db.prices);
  commitData(ctx.deps);
  basic = newKey(ctx.deps, "basic").headers;
});

afterAll(() => {
  ctx.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("price index computed off the serving thread", () => {
  test("the request waits on the worker: the answer is not there after the calling turn's microtasks", async () => {
    const live = ctx.deps.dataSets.live;
    const pending = priceIndexAnswer(live, { region: "center" }, 2);
    for (let i = 0; i < 10; i++) await Promise.resolve();
    expect(Bun.peek.status(pending)).toBe("pending");
    const answer = await pending;
    expect(answer.snapshot.version).toBe(live.data.current.version);
    // Once computed, it is cached: the next call answers at once.
    const again = priceIndexAnswer(live, { region: "center" }, 2);
    await Promise.resolve();
    expect(Bun.peek.status(again)).toBe("fulfilled");
    expect((await again).value).toBe(answer.value);
  });

  test("at most two workers compute at once: scopes asked together wait their turn, and each gets its own answer", async () => {
    const live = ctx.deps.dataSets.live;
    const scopes = [{ region: "north" }, { region: "south" }, { city: "חיפה" }, { region: "jerusalem" }];
    const pending = scopes.map((scope) => priceIndexAnswer(live, scope, 12));
    expect(workerSlots()).toEqual({ busy: 2, waiting: 2 });
    const answers = await Promise.all(pending);
    expect(workerSlots()).toEqual({ busy: 0, waiting: 0 });
    scopes.forEach((scope, i) => {
      const inline = fullPriceIndex(live, scope, true);
      expect(answers[i]!.value.meta.basket_products).toBe(inline.basket);
      expect(answers[i]!.value.meta.chains_with_data).toBe(inline.chains);
      expect((JSON.parse(new TextDecoder().decode(answers[i]!.value.json.bytes)) as unknown[]).length).toBe(inline.entries.length);
    });
  });

  test("the worker's answers equal the index computed on the calling thread, with and without history, in every scope", async () => {
    const live = ctx.deps.dataSets.live;
    for (const [query, scope, months] of [
      ["", {}, undefined],
      ["?months=24", {}, 24],
      ["?months=1&region=haifa", { region: "haifa" }, 1],
      [`?city=${encodeURIComponent("חיפה")}`, { city: "חיפה" }, undefined],
    ] as const) {
      const { status, body } = await get(ctx.app, `/api/v1/chains/price-index/${query}`, basic);
      expect(status).toBe(200);
      const inline = fullPriceIndex(live, scope, months !== undefined);
      const from = body.meta.from as string | null;
      const expected = inline.entries.map((e) => (from === null ? e : { ...e, history: e.history!.filter((p) => p.date >= from) }));
      expect(body.data).toEqual(expected);
      expect(body.meta).toMatchObject({ basket_products: inline.basket, chains_with_data: inline.chains });
    }
  });

  test("history from the worker: B's index drops on the day its prices did", async () => {
    const { body } = await get(ctx.app, "/api/v1/chains/price-index/?months=1", basic);
    const rami = body.data.find((c: any) => c.chain_id === "rami-levy").history;
    expect(rami.find((p: any) => p.date === "2026-11-07").index).toBeGreaterThan(rami.find((p: any) => p.date === "2026-11-08").index);
  });

  test("an import committed while the worker computes: the answer is of the new data version", async () => {
    const live = ctx.deps.dataSets.live;
    const pending = priceIndexAnswer(live, { region: "haifa" }, undefined);
    commitData(ctx.deps, "2026-11-22T06:00:00+02:00");
    const answer = await pending;
    expect(answer.snapshot.version).toBe(live.data.current.version);
    expect(answer.snapshot.updatedAt).toBe("2026-11-22T06:00:00+02:00");
  });
});
