import { beforeAll, describe, expect, spyOn, test } from "bun:test";
import { testApp, commitData, get } from "../helpers/app.ts";
import { Fixture } from "../helpers/fixture.ts";
import { newKey } from "../helpers/keys.ts";
import { HistoryResponse, PricesResponse } from "../../src/modules/prices/model.ts";
import { chainAnswer } from "../../src/modules/prices/service.ts";

// Answers of /prices/ are cached per data version and expire at the next promotion start or end:
// these tests move the clock across such boundaries and change data under a new version.
let clock = new Date("2026-11-22T10:00:00Z");
const ctx = testApp({ now: () => clock });
const f = new Fixture(ctx.db.prices, ctx.chainIds);
let key: Record<string, string>;
let store1 = 0;
let milk = 0;

beforeAll(async () => {
  store1 = f.store("shufersal", "1", { city: "חיפה", region: "haifa" });
  const s2 = f.store("shufersal", "2", { city: "ירושלים", region: "jerusalem" });
  milk = f.product("7290000066318", "חלב 3% 1 ליטר", { sizeAmount: 1000, sizeUnit: "ml" });
  f.price(store1, milk, 690);
  f.price(s2, milk, 690);
  // Starts one hour after the first request, ends two hours after it.
  f.promotion("shufersal", "LATER", {
    stores: [store1, s2],
    items: [milk],
    minQty: 1,
    discountedPrice: 500,
    startsAt: "2026-11-22T13:00:00+02:00",
    endsAt: "2026-11-22T14:00:00+02:00",
  });
  commitData(ctx.deps);
  key = newKey(ctx.deps, "pro").headers;
});

const chainPrice = async () => {
  const { status, body } = await get(ctx.app, "/api/v1/prices/?barcode=7290000066318", key);
  expect(status).toBe(200);
  return body.data.prices[0];
};

describe("cached /prices/ answers", () => {
  test("follow a promotion starting and ending after they were first computed", async () => {
    clock = new Date("2026-11-22T10:00:00Z"); // 12:00 Israel time: not started
    expect(await chainPrice()).toMatchObject({ price_ils: "6.90", effective_price_ils: "6.90", is_on_promotion: false });
    clock = new Date("2026-11-22T10:59:59Z"); // still before the start: same answer
    expect((await chainPrice()).effective_price_ils).toBe("6.90");
    clock = new Date("2026-11-22T11:00:00Z"); // 13:00: started
    expect(await chainPrice()).toMatchObject({ effective_price_ils: "5.00", is_on_promotion: true });
    clock = new Date("2026-11-22T12:00:00Z"); // 14:00: ended (the end is exclusive)
    expect(await chainPrice()).toMatchObject({ effective_price_ils: "6.90", is_on_promotion: false });
  });

  test("a new data version shows new prices; the same version keeps the snapshot it answered from", async () => {
    clock = new Date("2026-11-22T12:30:00Z");
    expect((await chainPrice()).price_ils).toBe("6.90");
    ctx.db.prices.run("UPDATE price_current SET price = 750 WHERE product_id = ?", [milk]);
    // Not committed as a new version yet: the cached answer stands.
    expect((await chainPrice()).price_ils).toBe("6.90");
    commitData(ctx.deps);
    expect((await chainPrice()).price_ils).toBe("7.50");
  });

  test("filters are part of the question", async () => {
    const haifa = await get(ctx.app, `/api/v1/prices/?barcode=7290000066318&granularity=store&city=${encodeURIComponent("חיפה")}`, key);
    const all = await get(ctx.app, "/api/v1/prices/?barcode=7290000066318&granularity=store", key);
    expect(haifa.body.data.prices.map((p: any) => p.store.store_id)).toEqual(["1"]);
    expect(all.body.data.prices.map((p: any) => p.store.store_id)).toEqual(["1", "2"]);
  });

  test("answers are sent as serialized once but still match the documented schema, with meta filled per request", async () => {
    for (const path of ["/api/v1/prices/?barcode=7290000066318", "/api/v1/prices/?barcode=7290000066318&granularity=store"]) {
      const first = await get(ctx.app, path, key);
      const second = await get(ctx.app, path, key);
      expect(PricesResponse.safeParse(first.body).success).toBe(true);
      expect(first.headers.get("content-type")).toBe("application/json;charset=utf-8");
      expect(first.body.meta.request_id).toMatch(/^req_/);
      expect(second.body.meta.request_id).not.toBe(first.body.meta.request_id);
      expect(first.headers.get("x-request-id")).toBe(first.body.meta.request_id);
      expect(first.headers.get("etag")).toBeTruthy();
      expect(second.body.data).toEqual(first.body.data);
    }
  });

  test("history answers move their window at Israel midnight and match the documented schema", async () => {
    ctx.db.prices.run("INSERT INTO price_history (product_id, store_id, valid_from, price) VALUES (?, ?, '2026-06-01T08:00:00+03:00', 650)", [milk, store1]);
    commitData(ctx.deps);
    clock = new Date("2026-11-22T21:59:00Z"); // 23:59 Israel time (UTC+2)
    const before = await get(ctx.app, "/api/v1/prices/7290000066318/history/?months=1", key);
    expect(before.status).toBe(200);
    expect(before.body.meta.from).toBe("2026-10-22");
    expect(HistoryResponse.safeParse(before.body).success).toBe(true);
    clock = new Date("2026-11-22T22:00:00Z"); // 00:00 on the 23rd
    const after = await get(ctx.app, "/api/v1/prices/7290000066318/history/?months=1", key);
    expect(after.body.meta.from).toBe("2026-10-23");
    expect(after.body.data.history.map((h: any) => h.date)).toEqual(["2026-10-23"]);
    expect(after.body.meta.records).toBe(after.body.data.history.length);
  });

  test("shared entries (the widget reuses /prices/' cached answer) cannot be changed by a caller", () => {
    const entries = chainAnswer(ctx.deps.dataSets.live, "7290000066318").answer.prices;
    expect(() => {
      (entries[0] as { price_ils: string }).price_ils = "0.01";
    }).toThrow();
    expect(chainAnswer(ctx.deps.dataSets.live, "7290000066318").answer.prices[0]!.price_ils).not.toBe("0.01");
  });

  test("an answer held for the current data is found by its group and barcode: no keyed lookup (AnswerCache.get) on a hit", async () => {
    const answers = ctx.deps.dataSets.live.answers;
    for (const query of ["barcode=7290000066318", "barcode=7290000066318&granularity=store", "barcode=7290000066318&city=חיפה"]) {
      // Serialized store answers have a cache of their own (STORE_CACHE_BYTES).
      const cache = query.includes("granularity=store") ? answers.storePrices : answers.prices;
      await get(ctx.app, `/api/v1/prices/?${query}`, key);
      const keyed = spyOn(cache, "get");
      const hits = cache.counts.hit;
      const { status } = await get(ctx.app, `/api/v1/prices/?${query}`, key);
      expect({ query, status, keyed: keyed.mock.calls.length, hits: cache.counts.hit - hits }).toEqual({ query, status: 200, keyed: 0, hits: 1 });
      keyed.mockRestore();
    }
  });
});
