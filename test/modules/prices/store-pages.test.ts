import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { gunzipSync } from "node:zlib";
import { testApp, commitData, get, FIXED_NOW } from "../../helpers/app.ts";
import { Fixture } from "../../helpers/fixture.ts";
import { newKey } from "../../helpers/keys.ts";
import { PricesResponse } from "../../../src/modules/prices/model.ts";
import { productPrices, storePriceAnswers } from "../../../src/modules/prices/service.ts";

// 23 stores of three chains (Hebrew branch names), one product; a promotion that ends on
// 2026-11-25 makes the store "r-9" the cheapest until then.
const ctx = testApp();
const f = new Fixture(ctx.db.prices, ctx.chainIds);
let key: Record<string, string>;
const BARCODE = "7290000066318";
const OTHERS = ["7290000000011", "7290000000028", "7290000000035", "7290000000042", "7290000000059"];

beforeAll(() => {
  const milk = f.product(BARCODE, "חלב 3% 1 ליטר", { sizeAmount: 1000, sizeUnit: "ml" });
  const others = OTHERS.map((b, i) => f.product(b, `מוצר ${i}`));
  const stores: number[] = [];
  for (let i = 1; i <= 23; i++) {
    const chain = i % 3 === 0 ? "shufersal" : i % 3 === 1 ? "rami-levy" : "osher-ad";
    const store = f.store(chain, String(i), { name: `סניף ${i}`, city: i % 2 ? "חיפה" : "ירושלים", region: i % 2 ? "haifa" : "jerusalem" });
    stores.push(store);
    f.price(store, milk, 600 + ((i * 37) % 11) * 10);
    for (const p of others) f.price(store, p, 1000 + i);
  }
  // Store 7 (rami-levy, shelf 6.60 or so) is the cheapest while its promotion lasts.
  f.promotion("rami-levy", "P7", { stores: [stores[6]!], items: [milk], minQty: 1, discountedPrice: 100, endsAt: "2026-11-25T00:00:00+02:00" });
  commitData(ctx.deps);
  key = newKey(ctx.deps, "pro").headers;
});

afterEach(() => {
  ctx.clock.now = FIXED_NOW;
});

const call = (path: string, headers: Record<string, string> = {}) => get(ctx.app, path, { ...key, ...headers });
const storeIds = (body: any) => body.data.prices.map((p: any) => `${p.chain_id}/${p.store.store_id}`);

/** Every page of a walk with `limit`, following meta.next_cursor. */
async function walk(query: string, limit: number) {
  const pages: any[] = [];
  let cursor: string | null = null;
  do {
    const res = await call(`/api/v1/prices/?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(res.status).toBe(200);
    expect(PricesResponse.safeParse(res.body).success).toBe(true);
    pages.push(res.body);
    cursor = res.body.meta.next_cursor;
  } while (cursor !== null);
  return pages;
}

describe("GET /api/v1/prices/?granularity=store with limit and cursor", () => {
  test("a walk over every page gives the unpaged list, in order, each entry once; meta says the total", async () => {
    const whole = await call(`/api/v1/prices/?barcode=${BARCODE}&granularity=store`);
    expect(whole.status).toBe(200);
    expect(whole.body.data.prices).toHaveLength(23);
    expect(whole.body.meta.next_cursor).toBeUndefined();
    for (const limit of [1, 5, 7, 23, 1000]) {
      const pages = await walk(`barcode=${BARCODE}&granularity=store`, limit);
      expect(pages).toHaveLength(Math.ceil(23 / limit));
      expect(pages.flatMap((p) => p.data.prices)).toEqual(whole.body.data.prices);
      for (const p of pages) {
        expect(p.meta.total).toBe(23);
        expect(p.data.prices.length).toBeLessThanOrEqual(limit);
        // The product's fields on every page.
        expect({ ...p.data, prices: [] }).toEqual({ ...whole.body.data, prices: [] });
      }
      expect(pages.at(-1).meta.next_cursor).toBeNull();
    }
  });

  test("with filters: pages of the filtered list; gzipped pages are the same JSON", async () => {
    const whole = await call(`/api/v1/prices/?barcode=${BARCODE}&granularity=store&city=חיפה`);
    const pages = await walk(`barcode=${BARCODE}&granularity=store&city=${encodeURIComponent("חיפה")}`, 4);
    expect(pages.flatMap((p) => p.data.prices)).toEqual(whole.body.data.prices);
    const plain = await call(`/api/v1/prices/?barcode=${BARCODE}&granularity=store&limit=4`, { "accept-encoding": "identity" });
    const gzipped = await ctx.app.handle(
      new Request(`http://localhost/api/v1/prices/?barcode=${BARCODE}&granularity=store&limit=4`, { headers: { ...key, "accept-encoding": "gzip" } }),
    );
    expect(gzipped.headers.get("content-encoding")).toBe("gzip");
    const unzipped = JSON.parse(gunzipSync(Buffer.from(await gzipped.arrayBuffer())).toString("utf8"));
    expect(unzipped.data).toEqual(plain.body.data);
  });

  test("the served store answer (written as text) is the entry objects other modules read, serialized", async () => {
    for (const query of ["", "&city=חיפה", "&near=32.79,34.99&radius_km=50"]) {
      const served = await call(`/api/v1/prices/?barcode=${BARCODE}&granularity=store${query}`);
      expect(served.status).toBe(200);
      const params = new URLSearchParams(query);
      const near = params.get("near")?.split(",").map(Number);
      const objects = productPrices(ctx.deps.dataSets.live, BARCODE, "store", {
        city: params.get("city") ?? undefined,
        ...(near ? { near: { lat: near[0]!, lon: near[1]!, radiusKm: 50 } } : {}),
      });
      expect(served.body.data).toEqual(JSON.parse(JSON.stringify(objects)));
      expect(served.body.data.prices.length).toBeGreaterThan(0);
      if (near) expect(served.body.data.prices.every((p: any) => typeof p.distance_km === "number")).toBe(true);
    }
  });

  test("an unpaged answer sent gzipped and not is the same JSON (the answer is held deflated only)", async () => {
    const path = `/api/v1/prices/?barcode=${BARCODE}&granularity=store`;
    const plain = await call(path, { "accept-encoding": "identity" });
    const gzipped = await ctx.app.handle(new Request(`http://localhost${path}`, { headers: { ...key, "accept-encoding": "gzip" } }));
    expect(gzipped.headers.get("content-encoding")).toBe("gzip");
    expect(JSON.parse(gunzipSync(Buffer.from(await gzipped.arrayBuffer())).toString("utf8")).data).toEqual(plain.body.data);
    expect(plain.body.data.prices[0].store.branch_name).toBe("סניף 7");
  });

  test.each([
    ["limit=0", "limit"],
    ["limit=1001", "limit"],
    ["limit=abc", "limit"],
    ["limit=", "limit"],
    ["limit=2.5", "limit"],
  ])("%s → 400 invalid_parameter with param", async (query, param) => {
    const { status, body, headers } = await call(`/api/v1/prices/?barcode=${BARCODE}&granularity=store&${query}`);
    expect(status).toBe(400);
    expect(headers.get("content-type")).toContain("application/problem+json");
    expect(body).toMatchObject({ code: "invalid_parameter", param });
  });

  test("limit or cursor at chain granularity → 400 invalid_parameter naming it", async () => {
    for (const [query, param] of [["limit=5", "limit"], ["cursor=abc", "cursor"], ["granularity=chain&limit=5&cursor=abc", "limit"]]) {
      const { status, body } = await call(`/api/v1/prices/?barcode=${BARCODE}&${query}`);
      expect({ query, status, code: body.code, param: body.param }).toEqual({ query, status: 400, code: "invalid_parameter", param });
    }
  });

  test("a malformed cursor, or one of another question or limit → 400 invalid_cursor", async () => {
    const first = await call(`/api/v1/prices/?barcode=${BARCODE}&granularity=store&limit=5`);
    const cursor = first.body.meta.next_cursor as string;
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    for (const path of [
      `/api/v1/prices/?barcode=${BARCODE}&granularity=store&limit=5&cursor=not*valid`,
      `/api/v1/prices/?barcode=${BARCODE}&granularity=store&limit=6&cursor=${cursor}`,
      `/api/v1/prices/?barcode=${BARCODE}&granularity=store&cursor=${cursor}`,
      `/api/v1/prices/?barcode=${BARCODE}&granularity=store&limit=5&region=haifa&cursor=${cursor}`,
      `/api/v1/prices/?barcode=${OTHERS[0]}&granularity=store&limit=5&cursor=${cursor}`,
    ]) {
      const { status, body } = await call(path);
      expect({ path, status, code: body.code, param: body.param }).toEqual({ path, status: 400, code: "invalid_cursor", param: "cursor" });
    }
  });

  test("a cursor of an older data version, or made before a promotion reordered the list → 400 invalid_cursor", async () => {
    const first = await call(`/api/v1/prices/?barcode=${BARCODE}&granularity=store&limit=3`);
    expect(storeIds(first.body)[0]).toBe("rami-levy/7");
    // The promotion ends: store 7 moves down the list, so the first page's last store is no longer third.
    ctx.clock.now = new Date("2026-11-26T10:00:00Z");
    const moved = await call(`/api/v1/prices/?barcode=${BARCODE}&granularity=store&limit=3&cursor=${first.body.meta.next_cursor}`);
    expect(moved.status).toBe(400);
    expect(moved.body).toMatchObject({ code: "invalid_cursor", param: "cursor" });
    const again = await call(`/api/v1/prices/?barcode=${BARCODE}&granularity=store&limit=3`);
    expect(storeIds(again.body)[0]).not.toBe("rami-levy/7");
    commitData(ctx.deps);
    const stale = await call(`/api/v1/prices/?barcode=${BARCODE}&granularity=store&limit=3&cursor=${again.body.meta.next_cursor}`);
    expect(stale.status).toBe(400);
    expect(stale.body).toMatchObject({ code: "invalid_cursor", param: "cursor" });
  });
});

describe("the store answers' cache", () => {
  test("holds store answers by their deflated bytes within its own bound, and never evicts chain answers", async () => {
    const live = ctx.deps.dataSets.live;
    const saved = live.answers.storePrices;
    try {
      // One answer's weight (every OTHERS product has answers of the same size), on a cache of the real bound.
      const fresh = (live.answers.storePrices = storePriceAnswers(ctx.deps.pacing));
      const answer = await call(`/api/v1/prices/?barcode=${OTHERS[0]}&granularity=store`, { "accept-encoding": "identity" });
      const one = fresh.holding.weight;
      expect(fresh.holding.entries).toBe(1);
      // Weighed by its deflated bytes: less than its JSON.
      expect(one).toBeLessThan(Buffer.byteLength(JSON.stringify(answer.body.data)));
      // A cache bounded to three such answers and a half.
      const bound = Math.floor(one * 3.5);
      const small = (live.answers.storePrices = storePriceAnswers(ctx.deps.pacing, bound));
      expect((await call(`/api/v1/prices/?barcode=${BARCODE}`)).status).toBe(200);
      const chainHits = live.answers.prices.counts.hit;
      for (const barcode of [...OTHERS, ...OTHERS]) expect((await call(`/api/v1/prices/?barcode=${barcode}&granularity=store`)).status).toBe(200);
      expect(small.holding.entries).toBe(3);
      expect(small.holding.weight).toBeLessThanOrEqual(bound);
      // Ten store answers computed (five barcodes in turn, each evicted before it came again), none from the cache.
      expect(small.counts).toMatchObject({ computed: 10, hit: 0 });
      // The chain answer asked before them is still held.
      expect((await call(`/api/v1/prices/?barcode=${BARCODE}`)).status).toBe(200);
      expect(live.answers.prices.counts.hit).toBe(chainHits + 1);
    } finally {
      live.answers.storePrices = saved;
    }
  });
});
