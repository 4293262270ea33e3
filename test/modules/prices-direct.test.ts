import { beforeAll, describe, expect, test } from "bun:test";
import { gunzipSync } from "node:zlib";
import { testApp, commitData } from "../helpers/app.ts";
import { Fixture } from "../helpers/fixture.ts";
import { newKey } from "../helpers/keys.ts";
import { createApp } from "../../src/app.ts";
import { RouteTable } from "../../src/http/routes.ts";
import { OPERATIONS } from "../../src/modules/index.ts";
import { accessLayer } from "../../src/access/plugin.ts";
import { RequestObserver } from "../../src/http/observability/plugin.ts";
import { fastLane } from "../../src/http/fast-lane.ts";
import { pricesFeature } from "../../src/modules/prices/index.ts";

// GET /api/v1/prices/ is answered before Elysia's lifecycle (the fast lane: src/http/fast-lane.ts): the
// same request must get the same answer — status, every header, body — as through the lifecycle.
const ctx = testApp({ env: { MEHIR_RATE_FREE: "6" } });
const lifecycle = createApp(ctx.deps, { directRoutes: false });
const CHAINS = ["shufersal", "rami-levy", "super-cofix", "carrefour", "quik", "victory", "mahsanei-hashuk", "h-cohen"];

beforeAll(() => {
  const f = new Fixture(ctx.db.prices, ctx.chainIds);
  const milk = f.product("7290000066318", "חלב 3% 1 ליטר", { manufacturer: "תנובה", sizeAmount: 1000, sizeUnit: "ml" });
  CHAINS.forEach((chain, i) => {
    for (const code of ["1", "2"]) f.price(f.store(chain, code, { city: "חיפה", region: "haifa" }), milk, 600 + 10 * i + Number(code));
  });
  commitData(ctx.deps);
});

/** Headers whose values change from one request to the next (ids, what is left of a bucket or quota). */
const VOLATILE = new Set(["x-request-id", "x-ratelimit-remaining", "x-ratelimit-reset", "x-quota-remaining"]);

async function answerOf(app: { handle(r: Request): Promise<Response> }, path: string, headers: Record<string, string>) {
  const res = await app.handle(new Request(`http://localhost${path}`, { headers }));
  const raw = new Uint8Array(await res.arrayBuffer());
  const text = new TextDecoder().decode(res.headers.get("content-encoding") === "gzip" ? gunzipSync(raw) : raw);
  const body = text ? JSON.parse(text) : null;
  if (body?.meta) {
    delete body.meta.request_id;
    delete body.meta.quota_remaining;
  }
  if (body?.request_id) delete body.request_id;
  if (typeof body?.detail === "string") body.detail = body.detail.replace(/req_[0-9a-z]+/g, "req_…");
  const stable = [...res.headers].filter(([name]) => !VOLATILE.has(name)).sort(([a], [b]) => (a < b ? -1 : 1));
  return { status: res.status, headers: stable, names: [...res.headers.keys()].sort(), body, id: res.headers.get("x-request-id"), quota: res.headers.get("x-quota-remaining") };
}

/** The same request through the direct route and through the lifecycle. */
async function both(path: string, headers: Record<string, string>) {
  return { direct: await answerOf(ctx.app, path, headers), lifecycle: await answerOf(lifecycle, path, headers) };
}

describe("GET /api/v1/prices/ answered directly, as the lifecycle answers it", () => {
  test("success, plain and gzipped, and the quota counts one call either way", async () => {
    const { headers } = newKey(ctx.deps, "pro", "live");
    for (const extra of [{}, { "accept-encoding": "gzip" }] as Record<string, string>[]) {
      const { direct, lifecycle } = await both("/api/v1/prices/?barcode=7290000066318", { ...headers, ...extra });
      expect(direct.status).toBe(200);
      expect(direct).toMatchObject({ status: lifecycle.status, headers: lifecycle.headers, names: lifecycle.names, body: lifecycle.body });
      expect(direct.names).toEqual(expect.arrayContaining(["etag", "last-modified", "cache-control", "vary", "x-quota-limit", "x-quota-remaining", "x-ratelimit-limit", "x-request-id"]));
      expect(Number(direct.quota) - Number(lifecycle.quota)).toBe(1);
    }
    const gzipped = await ctx.app.handle(new Request("http://localhost/api/v1/prices/?barcode=7290000066318", { headers: { ...headers, "accept-encoding": "gzip" } }));
    expect(gzipped.headers.get("content-encoding")).toBe("gzip");
  });

  test("the same refusals and errors, problem+json with the same headers", async () => {
    const live = newKey(ctx.deps, "pro", "live").headers;
    const cases: [string, Record<string, string>][] = [
      ["/api/v1/prices/?barcode=7290000066318", {}],
      ["/api/v1/prices/?barcode=7290000066318", { "x-api-key": "sk_live_" + "x".repeat(32) }],
      ["/api/v1/prices/?barcode=7290000066318", newKey(ctx.deps, "pro", "publishable").headers],
      ["/api/v1/prices/?barcode=7290000066318&key=sk_live_" + "y".repeat(32), live],
      ["/api/v1/prices/?barcode=7290000066318&granularity=shelf", live],
      ["/api/v1/prices/?barcode=7290000066318&barcode=1", live],
      ["/api/v1/prices/?barcode=7299999999999", live],
      ["/api/v1/prices/?barcode=7290000066318&chain_id=no-such-chain", live],
      ["/api/v1/prices?barcode=7290000066318", live],
      ["/api/v1/prices/?barcode=7290000066318", newKey(ctx.deps, "pro", "test").headers],
    ];
    for (const [path, headers] of cases) {
      const { direct, lifecycle } = await both(path, headers);
      expect({ path, ...direct, id: undefined, quota: undefined }).toEqual({ path, ...lifecycle, id: undefined, quota: undefined });
    }
  });

  test("rate limited: the same 429 once the bucket is empty (Free: 6 a minute, a burst of 1)", async () => {
    const free = newKey(ctx.deps, "free", "live").headers;
    const first = await answerOf(ctx.app, "/api/v1/prices/?barcode=7290000066318", free);
    expect(first.status).toBe(200);
    const { direct, lifecycle } = await both("/api/v1/prices/?barcode=7290000066318", free);
    expect(direct.status).toBe(429);
    expect(direct.body.code).toBe("rate_limited");
    expect({ ...direct, id: undefined }).toEqual({ ...lifecycle, id: undefined });
  });

  test("the app answers it before Elysia's lifecycle: at once, not through a promise as the lifecycle does", async () => {
    const { headers } = newKey(ctx.deps, "pro", "live");
    const request = () => new Request("http://localhost/api/v1/prices/?barcode=7290000066318", { headers });
    const direct = ctx.app.fetch(request()) as Response | Promise<Response>;
    expect(direct).toBeInstanceOf(Response);
    expect((direct as Response).status).toBe(200);
    const routed = lifecycle.fetch(request()) as Response | Promise<Response>;
    expect(routed).toBeInstanceOf(Promise);
    expect((await routed).status).toBe(200);
    // Without the trailing slash too (Bun's own router takes that path: Elysia's route handler, wrapped the same way).
    expect(ctx.app.fetch(new Request("http://localhost/api/v1/prices?barcode=7290000066318", { headers }))).toBeInstanceOf(Response);
  });

  test("requests it does not take are left to the lifecycle before any step ran", () => {
    const routes = new RouteTable(() => lifecycle.routes, OPERATIONS);
    const observer = new RequestObserver(routes, false);
    const access = accessLayer({ access: ctx.deps.access, settings: ctx.deps.settings, now: ctx.deps.now, loadMeter: ctx.deps.pacing.loadMeter }, ctx.deps.dataSets, routes);
    const direct = fastLane({ access, observer, express: null, trustProxy: false, now: () => new Date() }, pricesFeature.fast!(ctx.deps));
    const { headers } = newKey(ctx.deps, "pro", "live");
    const at = (path: string, init: RequestInit = {}) => direct(new Request(`http://localhost${path}`, { ...init, headers: { ...headers, ...(init.headers as Record<string, string>) } }), null);
    expect(at("/api/v1/prices/?barcode=7290000066318")).toBeInstanceOf(Response);
    expect(at("/api/v1/prices/?barcode=7290000066318", { method: "HEAD" })).toBeUndefined();
    expect(at("/api/v1/prices/?barcode=7290000066318", { headers: { "if-none-match": "*" } })).toBeUndefined();
    expect(at("/api/v1/prices/7290000066318/history/")).toBeUndefined();
    expect(at("/api/v1/chains/")).toBeUndefined();
    // What it answered is counted and logged as the lifecycle's answers are.
    expect(observer.metrics.requests.get({ method: "GET", route: "/api/v1/prices", status: "200" })).toBe(1);
  });
});
