import { beforeAll, describe, expect, test } from "bun:test";
import { testApp, commitData, get } from "../helpers/app.ts";
import { Fixture } from "../helpers/fixture.ts";
import { newKey } from "../helpers/keys.ts";
import { BatchResponse } from "../../src/modules/batch/model.ts";
import { settle } from "../helpers/access.ts";
import { loadSettings } from "../../src/config.ts";

// Milk in Shufersal (Tel Aviv, Haifa) and Rami Levy (Jerusalem, Tel Aviv); bread at Rami Levy only;
// a Rami Levy internal code "555" and a Shufersal internal code "555" (never merged).
// Rate limits high: these tests send many requests per key (the limiter is tested elsewhere).
const ctx = testApp({ settings: loadSettings({ MEHIR_RATE_FREE: "100000" }) });
const f = new Fixture(ctx.db.prices, ctx.chainIds);
let key: Record<string, string>;
const MILK = "7290000066318";
const BREAD = "7290000066004";

beforeAll(async () => {
  const s1 = f.store("shufersal", "1", { city: "תל אביב-יפו", region: "tel-aviv" });
  const s2 = f.store("shufersal", "2", { city: "חיפה", region: "haifa" });
  const r1 = f.store("rami-levy", "1", { city: "ירושלים", region: "jerusalem" });
  const r2 = f.store("rami-levy", "2", { city: "תל אביב-יפו", region: "tel-aviv" });
  const milk = f.product(MILK, "חלב 3% 1 ליטר", { sizeAmount: 1000, sizeUnit: "ml" });
  const bread = f.product(BREAD, "לחם אחיד");
  const ramiItem = f.product("555", "עגבניות רמי", { scopeChain: "rami-levy" });
  const shufItem = f.product("555", "עגבניות שופרסל", { scopeChain: "shufersal" });
  for (const [store, price] of [[s1, 690], [s2, 700], [r1, 650], [r2, 620]] as const) f.price(store, milk, price);
  f.price(r1, bread, 590);
  f.price(r1, ramiItem, 990);
  f.price(s1, shufItem, 1290);
  f.promotion("rami-levy", "R1", { stores: [r1], items: [milk], minQty: 1, discountedPrice: 500 });
  commitData(ctx.deps);
  key = newKey(ctx.deps, "free").headers;
});

async function batch(body: unknown, headers: Record<string, string> = key) {
  const res = await ctx.app.handle(
    new Request("http://localhost/api/v1/prices/batch/", { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) }),
  );
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

const prices = (query: string) => get(ctx.app, `/api/v1/prices/?${query}`, key);

describe("POST /api/v1/prices/batch/", () => {
  test("each item answered exactly as /prices/ answers it, in request order, unknown items as errors", async () => {
    const { status, body } = await batch({ items: [{ barcode: BREAD }, { barcode: "1234567890123" }, { barcode: MILK }] });
    expect(status).toBe(200);
    expect(BatchResponse.safeParse(body).success).toBe(true);
    expect(body.data).toHaveLength(3);
    expect(body.data[0]).toEqual((await prices(`barcode=${BREAD}`)).body.data);
    expect(body.data[1]).toEqual({ barcode: "1234567890123", error: { code: "product_not_found", detail: expect.stringContaining("1234567890123") } });
    expect(body.data[2]).toEqual((await prices(`barcode=${MILK}`)).body.data);
    expect(body.data[2].prices.map((p: any) => [p.chain_id, p.price_ils, p.effective_price_ils])).toEqual([
      ["rami-levy", "6.20", "5.00"], // effective 5.00 (R1) and 6.20 tie → the lower
      ["shufersal", "6.90", "6.90"],
    ]);
    expect(body.meta).toMatchObject({ items: 3, calls: 1, source: "demo" });
  });

  test("filters apply to every item as they do on /prices/: granularity, city, region", async () => {
    const city = encodeURIComponent("תל אביב");
    const { body } = await batch({ items: [{ barcode: MILK }, { barcode: BREAD }], granularity: "store", city: "תל אביב" });
    expect(body.data[0]).toEqual((await prices(`barcode=${MILK}&granularity=store&city=${city}`)).body.data);
    expect(body.data[0].prices.map((p: any) => `${p.chain_id}/${p.store.store_id}`)).toEqual(["rami-levy/2", "shufersal/1"]);
    expect(body.data[1].prices).toEqual([]); // bread is sold only in Jerusalem
    const region = await batch({ items: [{ barcode: MILK }], region: "jerusalem" });
    expect(region.body.data[0]).toEqual((await prices(`barcode=${MILK}&region=jerusalem`)).body.data);
  });

  test("chain_ids keeps those chains' entries: the union of /prices/?chain_id= for each", async () => {
    const { body } = await batch({ items: [{ barcode: MILK }], chain_ids: ["shufersal"] });
    expect(body.data[0].prices).toEqual((await prices(`barcode=${MILK}&chain_id=shufersal`)).body.data.prices);
    const both = await batch({ items: [{ barcode: MILK }], chain_ids: ["shufersal", "rami-levy"] });
    expect(both.body.data[0]).toEqual((await prices(`barcode=${MILK}`)).body.data);
    const store = await batch({ items: [{ barcode: MILK }], chain_ids: ["rami-levy"], granularity: "store" });
    expect(store.body.data[0].prices.map((p: any) => p.store.store_id)).toEqual(["1", "2"]); // 5.00 with R1, then 6.20
  });

  test("an item's chain_id names a chain-internal code as /prices/?chain_id= does; an unknown chain is that item's error", async () => {
    const { body } = await batch({
      items: [{ barcode: "555", chain_id: "rami-levy" }, { barcode: "555", chain_id: "shufersal" }, { barcode: "555", chain_id: "no-such-chain" }],
    });
    expect(body.data[0]).toEqual((await prices("barcode=555&chain_id=rami-levy")).body.data);
    expect(body.data[0].name).toBe("עגבניות רמי");
    expect(body.data[1].name).toBe("עגבניות שופרסל");
    expect(body.data[1].prices.map((p: any) => p.price_ils)).toEqual(["12.90"]);
    expect(body.data[2]).toEqual({ barcode: "555", chain_id: "no-such-chain", error: { code: "chain_not_found", detail: expect.any(String) } });
  });

  test("a bare code several chains use is that item's ambiguous_product, with the candidates /prices/ lists", async () => {
    const { status, body } = await batch({ items: [{ barcode: MILK }, { barcode: "555" }] });
    expect(status).toBe(200);
    const single = await prices("barcode=555");
    expect([single.status, single.body.code]).toEqual([400, "ambiguous_product"]);
    expect(body.data[1]).toEqual({ barcode: "555", error: { code: "ambiguous_product", detail: single.body.detail, candidates: single.body.candidates } });
    expect(body.data[1].error.candidates.map((c: any) => c.chain_id).sort()).toEqual(["rami-levy", "shufersal"]);
    expect(BatchResponse.safeParse(body).success).toBe(true);
  });

  test("near keeps the stores within the radius, each store entry with distance_km (as /prices/)", async () => {
    // Tel Aviv's centre: the two Tel Aviv stores (placed at the city centre, approximate) are 0 km away.
    const { status, body } = await batch({ items: [{ barcode: MILK }], granularity: "store", near: "32.0853,34.7818", radius_km: 3 });
    expect(status).toBe(200);
    expect(body.data[0]).toEqual((await prices(`barcode=${MILK}&granularity=store&near=32.0853,34.7818&radius_km=3`)).body.data);
    expect(body.data[0].prices.map((p: any) => [p.chain_id, p.store.store_id, p.distance_km])).toEqual([
      ["rami-levy", "2", 0],
      ["shufersal", "1", 0],
    ]);
    // Jerusalem's stores are ~54 km from Tel Aviv: inside a 50 km radius? No.
    const far = await batch({ items: [{ barcode: BREAD }], near: "32.0853,34.7818", radius_km: 50 });
    expect(far.body.data[0].prices).toEqual([]);
  });
});

describe("batch compression", () => {
  test("gzipped for clients that accept it, from the cached answers' own compressed bytes: one gzip member that inflates to the same answer", async () => {
    const body = JSON.stringify({ items: Array.from({ length: 30 }, (_, i) => ({ barcode: i % 3 ? MILK : i % 2 ? BREAD : "1234567890123" })) });
    const send = (encoding: string) =>
      ctx.app.handle(new Request("http://localhost/api/v1/prices/batch/", { method: "POST", headers: { "content-type": "application/json", "accept-encoding": encoding, ...key }, body }));
    const plain = await send("identity");
    expect(plain.headers.get("content-encoding")).toBeNull();
    const plainBody = (await plain.json()) as any;
    const zipped = await send("gzip");
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    const raw = new Uint8Array(await zipped.arrayBuffer());
    const inflated = JSON.parse(new TextDecoder().decode(Bun.gunzipSync(raw))) as any;
    expect(inflated.data).toEqual(plainBody.data);
    expect(inflated.data).toHaveLength(30);
    // Each cached answer is compressed on its own (no references across answers) and these are
    // small (two chains each) with the error items stored as they are: still about half the size.
    expect(raw.length).toBeLessThan(JSON.stringify(plainBody).length / 1.5);
  });
});

describe("batch validation", () => {
  test("more than 100 items → 400 naming items; none → 400", async () => {
    const many = await batch({ items: Array.from({ length: 101 }, () => ({ barcode: MILK })) });
    expect(many.status).toBe(400);
    expect(many.body).toMatchObject({ code: "invalid_parameter", param: "items" });
    const none = await batch({ items: [] });
    expect(none.status).toBe(400);
    expect(none.body.param).toBe("items");
  });

  test("bad values name their place", async () => {
    const cases: [unknown, string][] = [
      [{ items: [{ barcode: MILK }, { barcode: "12a" }] }, "items[1].barcode"],
      [{ items: [{ barcode: MILK, quantity: 2 }] }, "items[0].quantity"],
      [{ items: [{ barcode: MILK }], chain_ids: ["no-such-chain"] }, "chain_ids[0]"],
      [{ items: [{ barcode: MILK }], granularity: "city" }, "granularity"],
      [{ items: [{ barcode: MILK }], near: "51.5,-0.12" }, "near"],
      [{ items: [{ barcode: MILK }], near: "32.08" }, "near"],
      [{ items: [{ barcode: MILK }], near: "32.08,34.78", radius_km: 0.05 }, "radius_km"],
      [{ items: [{ barcode: MILK }], near: "32.08,34.78", radius_km: 51 }, "radius_km"],
      [{ items: [{ barcode: MILK }], radius_km: 5 }, "radius_km"],
    ];
    for (const [body, param] of cases) {
      const res = await batch(body);
      expect([res.status, res.body.code, res.body.param]).toEqual([400, "invalid_parameter", param]);
    }
  });

  test("a body that is not JSON, or not declared JSON", async () => {
    const res = await ctx.app.handle(new Request("http://localhost/api/v1/prices/batch", { method: "POST", headers: { "content-type": "application/json", ...key }, body: "{" }));
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).param).toBe("body");
    const untyped = await ctx.app.handle(new Request("http://localhost/api/v1/prices/batch", { method: "POST", headers: key, body: "{}" }));
    expect(untyped.status).toBe(415);
  });
});

describe("batch quota: one call per 10 items, rounded up", () => {
  test("1, 10, 11 and 100 items count 1, 1, 2 and 10 calls of a live key's quota", async () => {
    const live = newKey(ctx.deps, "free", "live").headers;
    const expected: [number, number][] = [[1, 1], [10, 1], [11, 2], [100, 10]];
    let remaining = 200;
    for (const [items, calls] of expected) {
      const res = await batch({ items: Array.from({ length: items }, () => ({ barcode: MILK })) }, live);
      remaining -= calls;
      expect([res.status, res.body.meta.calls, res.body.meta.quota_remaining, res.headers.get("x-quota-remaining")]).toEqual([200, calls, remaining, String(remaining)]);
    }
    // A refused body counts one call, like any 400.
    expect((await batch({ items: [] }, live)).status).toBe(400);
    await settle();
    const after = await get(ctx.app, "/api/v1/chains/", live);
    expect(after.body.meta.quota_remaining).toBe(remaining - 1 - 1);
  });

  test("a batch counting more calls than are left is refused whole (429) and counts nothing", async () => {
    const live = newKey(ctx.deps, "free", "live").headers;
    const items = (n: number) => Array.from({ length: n }, () => ({ barcode: MILK }));
    for (let i = 0; i < 19; i++) expect((await batch({ items: items(100) }, live)).status).toBe(200);
    expect((await batch({ items: items(10) }, live)).body.meta.quota_remaining).toBe(9);
    // 9 left: a batch of 100 (10 calls) is refused whole; one of 90 (9 calls) fits exactly.
    const refused = await batch({ items: items(100) }, live);
    expect([refused.status, refused.body.code, refused.headers.get("x-quota-remaining")]).toEqual([429, "quota_exceeded", "9"]);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    await settle();
    const fits = await batch({ items: items(90) }, live);
    expect([fits.status, fits.body.meta.quota_remaining]).toEqual([200, 0]);
    const spent = await batch({ items: items(1) }, live);
    expect([spent.status, spent.body.code]).toEqual([429, "quota_exceeded"]);
  });

  test("exact under concurrency: 70 parallel batches of 25 items (3 calls each) against 200 calls: 66 succeed, 2 calls left", async () => {
    const live = newKey(ctx.deps, "free", "live").headers;
    const answers = await Promise.all(Array.from({ length: 70 }, () => batch({ items: Array.from({ length: 25 }, () => ({ barcode: MILK })) }, live)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(66);
    expect(answers.filter((a) => a.status === 429 && a.body.code === "quota_exceeded")).toHaveLength(4);
    expect(new Set(answers.filter((a) => a.status === 200).map((a) => a.body.meta.quota_remaining)).size).toBe(66); // 197, 194, … 2: each once
    await settle();
    const one = await batch({ items: [{ barcode: MILK }] }, live);
    expect(one.body.meta.quota_remaining).toBe(1);
  });

  test("test keys never count", async () => {
    const res = await batch({ items: Array.from({ length: 100 }, () => ({ barcode: MILK })) });
    expect(res.status).toBe(200);
    expect(res.body.meta.calls).toBe(10);
  });
});

describe("large batch answers (written into the module's reused buffer)", () => {
  test("batches sent one after another and at once each arrive whole: gzip inflates to exactly the identity answer, Content-Length and headers as for any answer", async () => {
    // 100 store-granularity items: ~100 KB as JSON, tens of KB gzipped — both past AnswerBuffer's reuseFrom.
    const bodyOf = (offset: number) =>
      JSON.stringify({ items: Array.from({ length: 100 }, (_, i) => ({ barcode: (i + offset) % 4 === 3 ? "1234567890123" : (i + offset) % 2 ? MILK : BREAD })), granularity: "store" });
    // Over a real socket: the answer as sent (Content-Length, the gzip bytes as they are).
    const server = ctx.app.listen({ port: 0, hostname: "127.0.0.1" });
    const url = `http://127.0.0.1:${server.server!.port}/api/v1/prices/batch/`;
    const send = (body: string, encoding: string) =>
      fetch(url, { method: "POST", headers: { "content-type": "application/json", "accept-encoding": encoding, ...key }, body, decompress: false });
    try {
      const expected = async (offset: number) => ((await (await send(bodyOf(offset), "identity")).json()) as any).data;
      const wanted = [await expected(0), await expected(1)];
      expect(wanted[0]).not.toEqual(wanted[1]);
      const check = async (res: Response, offset: number, encoding: string) => {
        expect(res.status).toBe(200);
        const raw = new Uint8Array(await res.arrayBuffer());
        expect(raw.length).toBeGreaterThan(16 * 1024);
        expect(res.headers.get("content-length")).toBe(String(raw.length));
        expect(res.headers.get("content-type")).toBe("application/json;charset=utf-8");
        expect(res.headers.get("vary")).toContain("Accept-Encoding");
        expect(res.headers.get("x-request-id")).toBeTruthy();
        expect(res.headers.get("content-encoding")).toBe(encoding === "gzip" ? "gzip" : null);
        const text = new TextDecoder().decode(encoding === "gzip" ? Bun.gunzipSync(raw) : raw);
        const answer = JSON.parse(text) as any;
        expect(answer.data).toEqual(wanted[offset]);
        expect(answer.meta).toMatchObject({ items: 100, calls: 10 });
        return text;
      };
      // One after another, alternating bodies and encodings: each answer overwrites the last one's bytes.
      const texts: Record<string, string> = {};
      for (const offset of [0, 1, 0, 1]) for (const encoding of ["gzip", "identity"]) {
        const text = await check(await send(bodyOf(offset), encoding), offset, encoding);
        const data = text.slice(0, text.indexOf(',"meta":'));
        texts[`${offset}/${encoding}`] ??= data;
        expect(data).toBe(texts[`${offset}/${encoding}`]!); // the same batch, the same bytes each time
      }
      // The gzip answer inflates to exactly the identity answer's bytes.
      expect(texts["0/gzip"]).toBe(texts["0/identity"]!);
      expect(texts["1/gzip"]).toBe(texts["1/identity"]!);
      // At once: every response is made before any body is read.
      const cases = Array.from({ length: 8 }, (_, i) => ({ offset: i % 2, encoding: i % 4 < 2 ? "gzip" : "identity" }));
      const responses = await Promise.all(cases.map((c) => send(bodyOf(c.offset), c.encoding)));
      for (const [i, res] of responses.entries()) await check(res, cases[i]!.offset, cases[i]!.encoding);
    } finally {
      await ctx.app.stop();
    }
  });
});
