import { beforeAll, describe, expect, test } from "bun:test";
import { gunzipSync } from "node:zlib";
import { testApp, commitData } from "../helpers/app.ts";
import { Fixture } from "../helpers/fixture.ts";
import { newKey } from "../helpers/keys.ts";
import { settle } from "../helpers/access.ts";
import { createApp } from "../../src/app.ts";
import { RouteTable } from "../../src/http/routes.ts";
import { OPERATIONS } from "../../src/modules/index.ts";
import { accessLayer } from "../../src/access/plugin.ts";
import { RequestObserver } from "../../src/http/observability/plugin.ts";
import { fastLane } from "../../src/http/fast-lane.ts";
import { batchFeature } from "../../src/modules/batch/index.ts";
import { BatchBody } from "../../src/modules/batch/model.ts";
import { parseBatchBody, parseBatchJson, readBatchJson } from "../../src/modules/batch/parse-body.ts";
import { validateBody } from "../../src/http/request/json-body.ts";
import { accountSubject } from "../../src/access/quota-ledger.ts";

// POST /api/v1/prices/batch/ is answered before Elysia's lifecycle (the fast lane: src/http/fast-lane.ts):
// the same request must get the same answer — status, every header, body — as through the lifecycle,
// and count the same calls.
const ctx = testApp({ env: { MEHIR_RATE_FREE: "100000" } });
const lifecycle = createApp(ctx.deps, { directRoutes: false });
const CHAINS = ["shufersal", "rami-levy", "super-cofix", "carrefour", "quik", "victory", "mahsanei-hashuk", "h-cohen"];
const MILK = "7290000066318";
const BREAD = "7290000066004";

beforeAll(() => {
  const f = new Fixture(ctx.db.prices, ctx.chainIds);
  const milk = f.product(MILK, "חלב 3% 1 ליטר", { manufacturer: "תנובה", sizeAmount: 1000, sizeUnit: "ml" });
  const bread = f.product(BREAD, "לחם אחיד");
  const item = f.product("555", "עגבניות רמי", { scopeChain: "rami-levy" });
  CHAINS.forEach((chain, i) => {
    for (const code of ["1", "2"]) {
      const store = f.store(chain, code, { city: "חיפה", region: "haifa" });
      f.price(store, milk, 600 + 10 * i + Number(code));
      f.price(store, bread, 500 + 10 * i);
    }
  });
  f.price(f.store("rami-levy", "3", { city: "ירושלים", region: "jerusalem" }), item, 990);
  commitData(ctx.deps);
});

/** Headers whose values change from one request to the next (ids, what is left of a bucket or quota). */
const VOLATILE = new Set(["x-request-id", "x-ratelimit-remaining", "x-ratelimit-reset", "x-quota-remaining"]);

type Init = { headers: Record<string, string>; body: string; path?: string };

async function answerOf(app: { handle(r: Request): Promise<Response> }, { headers, body, path = "/api/v1/prices/batch/" }: Init) {
  const res = await app.handle(new Request(`http://localhost${path}`, { method: "POST", headers, body }));
  const raw = new Uint8Array(await res.arrayBuffer());
  const text = new TextDecoder().decode(res.headers.get("content-encoding") === "gzip" ? gunzipSync(raw) : raw);
  const parsed = text ? JSON.parse(text) : null;
  if (parsed?.meta) {
    delete parsed.meta.request_id;
    delete parsed.meta.quota_remaining;
  }
  if (parsed?.request_id) delete parsed.request_id;
  if (typeof parsed?.detail === "string") parsed.detail = parsed.detail.replace(/req_[0-9a-z]+/g, "req_…");
  const stable = [...res.headers].filter(([name]) => !VOLATILE.has(name)).sort(([a], [b]) => (a < b ? -1 : 1));
  return { status: res.status, headers: stable, names: [...res.headers.keys()].sort(), body: parsed, quota: res.headers.get("x-quota-remaining") };
}

/** The same request through the direct route and through the lifecycle. */
async function both(init: Init) {
  return { direct: await answerOf(ctx.app, init), lifecycle: await answerOf(lifecycle, init) };
}

const json = { "content-type": "application/json" };
const items = (n: number) => Array.from({ length: n }, (_, i) => ({ barcode: i % 3 === 2 ? "7299999999999" : i % 2 ? BREAD : MILK }));

describe("POST /api/v1/prices/batch/ answered directly, as the lifecycle answers it", () => {
  test("success, plain and gzipped, with filters and item errors; the quota counts the same calls either way", async () => {
    const { headers } = newKey(ctx.deps, "pro", "live");
    const bodies = [
      { items: items(25) },
      { items: [{ barcode: "555", chain_id: "rami-levy" }, { barcode: "555" }, { barcode: MILK, chain_id: "no-such-chain" }], granularity: "store", city: "חיפה" },
      { items: items(100), chain_ids: ["shufersal", "victory"], region: "haifa" },
    ];
    for (const body of bodies) {
      for (const extra of [{}, { "accept-encoding": "gzip" }] as Record<string, string>[]) {
        const { direct, lifecycle } = await both({ headers: { ...headers, ...json, ...extra }, body: JSON.stringify(body) });
        expect(direct.status).toBe(200);
        expect(direct).toMatchObject({ status: lifecycle.status, headers: lifecycle.headers, names: lifecycle.names, body: lifecycle.body });
        expect(Number(direct.quota) - Number(lifecycle.quota)).toBe(Math.ceil(body.items.length / 10));
      }
    }
    const gzipped = await ctx.app.handle(new Request("http://localhost/api/v1/prices/batch/", { method: "POST", headers: { ...headers, ...json, "accept-encoding": "gzip" }, body: JSON.stringify(bodies[2]) }));
    expect(gzipped.headers.get("content-encoding")).toBe("gzip");
  });

  test("the same refusals and errors, problem+json with the same headers, counting the same calls", async () => {
    const ok = JSON.stringify({ items: items(3) });
    const body = (value: unknown) => JSON.stringify(value);
    // Live-key cases run with a fresh key per app, so each account's usage is what that request counted.
    const liveCases: Init[] = [
      { headers: { "content-type": "text/plain" }, body: ok },
      { headers: json, body: "" },
      { headers: json, body: "{" },
      { headers: json, body: body({ items: [] }) },
      { headers: json, body: body({ items: items(101) }) },
      { headers: json, body: body({ items: [{ barcode: MILK }, { barcode: "12ab" }] }) },
      { headers: json, body: body({ items: [{ barcode: MILK, price: 1 }] }) },
      { headers: json, body: body({ items: [{ barcode: MILK }], extra: true }) },
      { headers: json, body: body({ items: [{ barcode: MILK }], chain_ids: ["shufersal", "no-such-chain"] }) },
      { headers: json, body: body({ items: [{ barcode: MILK }], city: "עיר שאיננה" }) },
      { headers: json, body: body({ items: [{ barcode: MILK }], near: "0,0" }) },
      { headers: json, body: body({ items: [{ barcode: MILK }], radius_km: 2 }) },
      { headers: json, body: body({ items: items(11) }), path: "/api/v1/prices/batch" },
      { headers: json, body: body({ items: [{ barcode: MILK }] }) + " ".repeat(65 * 1024) },
    ];
    for (const init of liveCases) {
      const keys = [newKey(ctx.deps, "pro", "live"), newKey(ctx.deps, "pro", "live")];
      const direct = await answerOf(ctx.app, { ...init, headers: { ...init.headers, ...keys[0]!.headers } });
      const viaLifecycle = await answerOf(lifecycle, { ...init, headers: { ...init.headers, ...keys[1]!.headers } });
      expect({ request: init.body.slice(0, 80), ...direct }).toEqual({ request: init.body.slice(0, 80), ...viaLifecycle });
      await settle();
      const used = keys.map((k) => ctx.deps.access.quota.usedThisMonth(accountSubject(k.accountId), ctx.deps.now()));
      expect(used[0]).toBe(direct.status === 200 ? 2 : 1);
      expect(used[0]).toEqual(used[1]!);
    }
    const cases: Init[] = [
      { headers: json, body: ok },
      { headers: { ...json, "x-api-key": "sk_live_" + "x".repeat(32) }, body: ok },
      { headers: { ...json, ...newKey(ctx.deps, "pro", "publishable").headers }, body: ok },
      { headers: { ...json, ...newKey(ctx.deps, "pro", "test").headers }, body: ok },
      { headers: { ...json, ...newKey(ctx.deps, "pro", "test").headers }, body: body({ items: [] }) },
    ];
    for (const init of cases) {
      const { direct, lifecycle } = await both(init);
      expect({ request: init.body.slice(0, 80), ...direct }).toEqual({ request: init.body.slice(0, 80), ...lifecycle });
    }
  });

  test("a batch counting more calls than are left: the same 429, nothing counted", async () => {
    const live = { ...newKey(ctx.deps, "free", "live").headers, ...json };
    const hundred = JSON.stringify({ items: items(100) });
    for (let i = 0; i < 19; i++) expect((await answerOf(i % 2 ? ctx.app : lifecycle, { headers: live, body: hundred })).status).toBe(200);
    expect((await answerOf(ctx.app, { headers: live, body: JSON.stringify({ items: items(10) }) })).quota).toBe("9");
    await settle();
    const { direct, lifecycle: viaLifecycle } = await both({ headers: live, body: hundred });
    expect([direct.status, direct.body.code, direct.quota]).toEqual([429, "quota_exceeded", "9"]);
    expect(direct).toEqual(viaLifecycle);
  });

  test("requests it does not take are left to the lifecycle before any step ran; what it answers is counted as the lifecycle's answers", async () => {
    const routes = new RouteTable(() => lifecycle.routes, OPERATIONS);
    const observer = new RequestObserver(routes, false);
    const access = accessLayer({ access: ctx.deps.access, settings: ctx.deps.settings, now: ctx.deps.now, loadMeter: ctx.deps.pacing.loadMeter }, ctx.deps.dataSets, routes);
    const direct = fastLane({ access, observer, express: null, trustProxy: false, now: () => new Date() }, batchFeature.fast!(ctx.deps));
    const { headers } = newKey(ctx.deps, "pro", "live");
    const at = (path: string, method = "POST") =>
      direct(new Request(`http://localhost${path}`, { method, headers: { ...headers, ...json }, body: method === "POST" ? JSON.stringify({ items: [{ barcode: MILK }] }) : undefined }), null);
    expect(await at("/api/v1/prices/batch/")).toBeInstanceOf(Response);
    expect(at("/api/v1/prices/batch/", "GET")).toBeUndefined();
    expect(at("/api/v1/prices/batch/", "OPTIONS")).toBeUndefined();
    expect(at("/api/v1/prices/")).toBeUndefined();
    expect(at("/api/v1/basket/")).toBeUndefined();
    expect(observer.metrics.requests.get({ method: "POST", route: "/api/v1/prices/batch", status: "200" })).toBe(1);
  });
});

describe("the batch body's common shape, checked without zod's per-item copies (parse-body.ts)", () => {
  test("parseBatchBody answers and refuses exactly as BatchBody does", () => {
    const barcodes = [MILK, "555", "0007290000066318", "g-tomatoes", "g-", "G-tomatoes", "12ab", "", "1".repeat(20), "1".repeat(21), `g-${"a".repeat(58)}`, `g-${"a".repeat(59)}`, 5, null];
    const chainIds = [undefined, "rami-levy", "Rami", "", "a".repeat(40), "a".repeat(41), 3, null];
    const variants: unknown[] = [];
    for (const barcode of barcodes) for (const chain_id of chainIds) variants.push(chain_id === undefined ? { barcode } : { barcode, chain_id });
    variants.push({}, { chain_id: "rami-levy" }, { barcode: MILK, price: 1 }, [MILK], MILK, null, JSON.parse(`{"barcode":"${MILK}","__proto__":{"x":1}}`));
    const bodies: unknown[] = [null, [], {}, { items: null }, { items: {} }, { items: [] }, { items: Array(101).fill({ barcode: MILK }) }, { items: Array(100).fill({ barcode: MILK }) }];
    for (const item of variants) {
      bodies.push({ items: [item] }, { items: [{ barcode: MILK }, item], granularity: "store" }, { items: [item], city: 5 }, { items: [item], near: "32.08,34.78", radius_km: 2, extra: 1 });
    }
    const outcome = (parse: () => unknown) => {
      try {
        return { ok: parse() };
      } catch (error) {
        return { error: (error as Error).message, options: (error as { options?: unknown }).options };
      }
    };
    for (const body of bodies) expect({ body, ...outcome(() => parseBatchBody(body)) }).toEqual({ body, ...outcome(() => validateBody(BatchBody, body)) });
  });

  test("parseBatchJson reads every text as JSON.parse does: the same value, members in the same order, or the same error", () => {
    const items = (n: number, chain?: string) => Array.from({ length: n }, (_, i) => (chain && i % 2 ? { barcode: String(7290000000000 + i), chain_id: chain } : { barcode: String(7290000000000 + i) }));
    const texts: string[] = [];
    const values: unknown[] = [
      { items: items(1) },
      { items: items(100), granularity: "chain" },
      { items: items(5, "rami-levy"), granularity: "store", chain_ids: ["shufersal"], city: "חיפה", near: "32.08,34.78", radius_km: 2 },
      { items: [{ barcode: "g-tomatoes" }, { barcode: "0007290000066318", chain_id: "osher-ad" }] },
      { items: [{ chain_id: "rami-levy", barcode: MILK }] },
      { items: [{ barcode: MILK, chain_id: "Rami" }] },
      { items: [{ barcode: "12ab" }] },
      { items: [{ barcode: "" }] },
      { items: [{ barcode: 'a"b' }, { barcode: "a\\b" }] },
      { items: [{ barcode: MILK, price: 1 }] },
      { items: [{ barcode: MILK }], extra: { items: 1 } },
      { items: [] },
      { granularity: "chain", items: items(3) },
    ];
    for (const value of values) texts.push(JSON.stringify(value), JSON.stringify(value, null, 1));
    const one = `{"items":[{"barcode":"${MILK}"}]`;
    texts.push(
      `${one}}`,
      `${one},}`,
      `${one},"items":[{"barcode":"1"}]}`,
      `${one},"__proto__":{"x":1}}`,
      `${one},"1":2,"city":"x"}`,
      `${one},"city":"x"} `,
      `${one},"city":"x"}}`,
      `${one}} `,
      `${one}`,
      `${one},`,
      `${one},"city":}`,
      `{"items":[{"barcode":"\u0037290000066318"}]}`,
      `{"items":[{"barcode":"${MILK}","barcode":"1"}]}`,
      `{"items":[{"barcode":"${MILK}"},]}`,
      `{"items":[{"barcode":"${MILK}"}{"barcode":"1"}]}`,
      `{"items":[{"barcode":"${MILK}","chain_id":"rami-levy","x":1}]}`,
      `{"items":[{"barcode":"${MILK}","chain_id":"rami-levy"`,
      `{"items":[{"barcode":"${MILK}`,
      `{"items":[{"barcode":"`,
    );
    const outcome = (parse: () => unknown) => {
      try {
        const value = parse();
        return { json: JSON.stringify(value), keys: Object.keys(value as object), proto: Object.getPrototypeOf(value) === Object.prototype, value };
      } catch (error) {
        return { error: `${(error as Error).name}: ${(error as Error).message}` };
      }
    };
    for (const text of texts) expect({ text, ...outcome(() => parseBatchJson(text)) }).toEqual({ text, ...outcome(() => JSON.parse(text)) });

    // Items readBatchJson checked need no second check: parseBatchBody answers and refuses as for JSON.parse's value.
    const body = (parse: () => unknown) => {
      try {
        return { ok: parse() };
      } catch (error) {
        return { error: (error as Error).message, options: (error as { options?: unknown }).options };
      }
    };
    const checked = texts.filter((text) => {
      try {
        return readBatchJson(text).itemsChecked;
      } catch {
        return false;
      }
    });
    expect(checked.length).toBeGreaterThan(5);
    for (const text of checked) {
      const { value, itemsChecked } = readBatchJson(text);
      expect({ text, ...body(() => parseBatchBody(value, itemsChecked)) }).toEqual({ text, ...body(() => parseBatchBody(JSON.parse(text))) });
    }

    // The compact shape's items are read by position: JSON.parse sees only the members after them.
    const parse = JSON.parse;
    const parsed: string[] = [];
    JSON.parse = ((text: string) => (parsed.push(text), parse(text))) as typeof JSON.parse;
    try {
      parseBatchJson(JSON.stringify({ items: items(100, "rami-levy"), granularity: "chain" }));
      parseBatchJson(JSON.stringify({ items: items(3) }));
    } finally {
      JSON.parse = parse;
    }
    expect(parsed).toEqual(['{"granularity":"chain"}']);
  });
});
