import { afterEach, beforeAll, describe, expect, spyOn, test } from "bun:test";
import * as fs from "node:fs";
import { gunzipSync } from "node:zlib";
import { testApp, commitData } from "../helpers/app.ts";
import { Fixture } from "../helpers/fixture.ts";
import { newKey } from "../helpers/keys.ts";
import { createApp } from "../../src/app.ts";
import { flushStdout, setLogFormat, setLogLevel } from "../../src/lib/log.ts";
import { RouteTable } from "../../src/http/routes.ts";
import { OPERATIONS } from "../../src/modules/index.ts";
import { RequestObserver } from "../../src/http/observability/plugin.ts";
import { expressLane } from "../../src/http/express-lane.ts";
import { expressAccess } from "../../src/access/express-access.ts";
import { pricesFeature } from "../../src/modules/prices/index.ts";
import { nextRequestId } from "../../src/http/request/request-state.ts";
import { captureStdout } from "../helpers/stdout-capture.ts";
import { PrebuiltJson } from "../../src/http/prebuilt/prebuilt-json.ts";
import { log } from "../../src/lib/log.ts";

// The express lane (src/http/express-lane.ts) answers the commonest GET /api/v1/prices/ request in
// one function. It must answer exactly what the fast lane's general steps and Elysia's lifecycle
// answer, count exactly what they count, and leave every other request to them untouched.
const BARCODE = "7290000066318";
const PATH = `/api/v1/prices/?barcode=${BARCODE}`;
const CHAINS = ["shufersal", "rami-levy", "super-cofix", "carrefour", "quik", "victory", "mahsanei-hashuk", "h-cohen"];
// No refill while a test runs (the buckets' clock is pinned), so every token taken shows.
const ctx = testApp({ env: { MEHIR_RATE_FREE: "8", MEHIR_QUOTA_FREE: "3" }, limiterClock: () => 0 });
const general = createApp(ctx.deps, { expressLane: false });
const lifecycle = createApp(ctx.deps, { directRoutes: false });
// Made last: the metrics endpoint reads this app's metrics.
const express = createApp(ctx.deps);
const GZIP = { "accept-encoding": "gzip" };

beforeAll(() => {
  const f = new Fixture(ctx.db.prices, ctx.chainIds);
  const milk = f.product(BARCODE, "חלב 3% 1 ליטר", { manufacturer: "תנובה", sizeAmount: 1000, sizeUnit: "ml" });
  const bread = f.product("7290000000019", "לחם", {});
  const sugar = f.product("7290000000026", "סוכר", {});
  CHAINS.forEach((chain, i) => {
    for (const code of ["1", "2"]) {
      const store = f.store(chain, code, { city: "חיפה", region: "haifa" });
      f.price(store, milk, 600 + 10 * i + Number(code));
      if (i === 0) f.price(store, bread, 800 + Number(code));
      if (i === 0 && code === "1") f.price(store, sugar, 500);
    }
  });
  commitData(ctx.deps);
});

afterEach(() => {
  setLogLevel("warn");
  setLogFormat("auto");
});

type App = { handle(request: Request): Promise<Response> };

/** An answer as a client reads it: status, headers, the body's JSON (inflated), and the figures that change per request apart. */
async function read(app: App, path: string, headers: Record<string, string>) {
  const res = await app.handle(new Request(`http://localhost${path}`, { headers }));
  const raw = new Uint8Array(await res.arrayBuffer());
  const text = new TextDecoder().decode(res.headers.get("content-encoding") === "gzip" ? gunzipSync(raw) : raw);
  const body = text ? JSON.parse(text) : null;
  const all = Object.fromEntries(res.headers);
  const { "x-request-id": id, "x-quota-remaining": quota, "x-ratelimit-remaining": tokens, "x-ratelimit-reset": reset, ...stable } = all;
  const meta = body?.meta ? { ...body.meta, request_id: undefined, quota_remaining: undefined } : undefined;
  if (typeof body?.detail === "string") body.detail = body.detail.replace(/req_[0-9a-z]+/g, "req_…");
  if (typeof body?.request_id === "string") body.request_id = "req_…";
  return { status: res.status, stable, names: [...res.headers.keys()], data: body?.data, meta, body, id, quota: Number(quota), tokens: Number(tokens), reset, rawMeta: body?.meta };
}

/** What `run` writes to the request log (stdout, JSON lines), parsed: the request lines only. */
async function requestLines(run: () => Promise<void>): Promise<Record<string, unknown>[]> {
  const out = captureStdout();
  try {
    await run();
    return out.lines().map((l) => JSON.parse(l)).filter((l) => l.msg === "request");
  } finally {
    out.restore();
  }
}

/** Which requests took the express lane: the access layer's key lookup is given the request's clock reading only there. */
function expressCalls() {
  const lookup = spyOn(ctx.deps.access.keys, "lookup");
  return {
    taken: () => lookup.mock.calls.filter((args) => (args as unknown[]).length === 2).length,
    restore: () => lookup.mockRestore(),
  };
}

describe("the express lane answers what the general steps answer", () => {
  test("the same status, headers and body; the same call counted, the same token taken", async () => {
    const { headers } = newKey(ctx.deps, "pro", "live");
    const ask = { ...headers, ...GZIP };
    await read(general, PATH, ask); // computed and cached
    const calls = expressCalls();
    try {
      const fast = await read(express, PATH, ask);
      const slow = await read(general, PATH, ask);
      const routed = await read(lifecycle, PATH, ask);
      const again = await read(express, `/api/v1/prices?barcode=${BARCODE}`, ask);
      expect(calls.taken()).toBe(2);
      expect(fast.status).toBe(200);
      expect(fast.stable["content-encoding"]).toBe("gzip");
      for (const other of [slow, routed]) {
        expect(fast.stable).toEqual(other.stable);
        expect(fast.names).toEqual(other.names);
        expect(fast.data).toEqual(other.data);
        expect(fast.meta).toEqual(other.meta);
      }
      // Without the trailing slash: the same answer and the same tag.
      expect({ ...again.stable }).toEqual(fast.stable);
      // One call and one token each, in the order asked, whichever way it was answered.
      expect([fast, slow, routed, again].map((a) => a.quota)).toEqual([fast.quota, fast.quota - 1, fast.quota - 2, fast.quota - 3]);
      expect([fast, slow, routed, again].map((a) => a.tokens)).toEqual([fast.tokens, fast.tokens - 1, fast.tokens - 2, fast.tokens - 3]);
      expect(fast.reset).toBe(slow.reset);
      // The meta's figures are the headers'.
      expect(fast.rawMeta).toMatchObject({ request_id: fast.id, quota_remaining: fast.quota, livemode: true });
      expect(fast.id).toMatch(/^req_[0-9a-f]{32}$/);
    } finally {
      calls.restore();
    }
  });

  test("the same request log line and metrics, and the cache counts the answer it served once", async () => {
    const { headers, key } = newKey(ctx.deps, "pro", "live");
    const ask = { ...headers, ...GZIP, "x-request-id": "client-7" };
    await read(general, PATH, ask);
    const cache = ctx.deps.dataSets.live.answers.prices;
    const count = () => {
      const text = ctx.deps.metricsEndpoint!(new Request("http://localhost/metrics"));
      return text.text().then((t) => Number(/mehir_http_requests_total\{method="GET",route="\/api\/v1\/prices",status="200"\} (\d+)/.exec(t)?.[1] ?? 0));
    };
    const before = await count();
    const hits = cache.counts.hit;
    const lines = await requestLines(async () => {
      await read(express, PATH, ask);
      await read(general, PATH, ask);
    });
    expect(cache.counts.hit - hits).toBe(2);
    expect(await count()).toBe(before + 1);
    expect(lines).toHaveLength(2);
    const [fast, slow] = lines.map((l) => ({ ...l, time: undefined, request_id: undefined, duration_ms: typeof l.duration_ms }));
    expect(fast).toEqual(slow!);
    expect(Object.keys(lines[0]!)).toEqual(Object.keys(lines[1]!));
    expect(lines[0]).toMatchObject({ route: "/api/v1/prices", status: 200, key_prefix: key.slice(0, 12), client: "unknown", client_request_id: "client-7" });
  });

  test("an answer's tag follows the answers' epoch: the next day's tag is the general steps' next-day tag", async () => {
    const { headers } = newKey(ctx.deps, "pro", "live");
    const ask = { ...headers, ...GZIP };
    await read(general, PATH, ask);
    const today = await read(express, PATH, ask);
    const saved = ctx.clock.now;
    try {
      ctx.clock.now = new Date(saved.getTime() + 86_400_000);
      await read(general, PATH, ask);
      const tomorrow = await read(express, PATH, ask);
      const slow = await read(general, PATH, ask);
      expect(tomorrow.stable.etag).not.toBe(today.stable.etag);
      expect(tomorrow.stable.etag).toBe(slow.stable.etag);
      // A conditional request with the tag is the general steps' 304.
      const conditional = await read(express, PATH, { ...ask, "if-none-match": tomorrow.stable.etag! });
      expect(conditional.status).toBe(304);
    } finally {
      ctx.clock.now = saved;
    }
  });
});

test("an answer that fails to be made is a 500 problem+json, and its call is given back", async () => {
  const key = newKey(ctx.deps, "pro", "live");
  const ask = { ...key.headers, ...GZIP };
  await read(general, PATH, ask);
  const used = () => (ctx.deps.access.quota.usedThisMonth as (subject: string, now: Date) => number)(`account:${key.accountId}`, ctx.deps.now());
  const before = used();
  const broken = spyOn(PrebuiltJson.prototype, "compressedHead").mockImplementation(() => {
    throw new Error("deflate failed");
  });
  // The error's log lines and the 500's request line (a warning) kept out of the test's output.
  const failed = spyOn(log, "error").mockImplementation(() => {});
  const written = spyOn(fs, "writeSync").mockImplementation(((_fd: number, _bytes: Uint8Array, _at: number, length: number) => length) as typeof fs.writeSync);
  let answer: Awaited<ReturnType<typeof read>>;
  try {
    answer = await read(express, PATH, ask);
    flushStdout();
  } finally {
    broken.mockRestore();
    failed.mockRestore();
    written.mockRestore();
  }
  expect(answer.status).toBe(500);
  expect(answer.body.code).toBe("internal_error");
  expect(used()).toBe(before);
  expect((await read(express, PATH, ask)).status).toBe(200);
  expect(used()).toBe(before + 1);
});

describe("the express lane leaves everything else to the general steps, before anything was taken", () => {
  const routes = new RouteTable(() => express.routes, OPERATIONS);
  const observer = new RequestObserver(routes, false);
  const access = expressAccess(ctx.deps.access, ctx.deps.settings, ctx.deps.dataSets.live, ctx.deps.pacing.loadMeter)!;
  const route = pricesFeature.fast!(ctx.deps)[0]!;
  const lane = expressLane({ access, observer, trustProxy: false, now: ctx.deps.now }, { path: "/api/v1/prices", audience: "free", held: route.held!, served: route.heldServed! });
  const at = (path: string, headers: Record<string, string>) => lane(new Request(`http://localhost${path}`, { headers }), null);

  test("requests of another shape, and answers not held", async () => {
    const live = newKey(ctx.deps, "pro", "live").headers;
    await read(general, PATH, { ...live, ...GZIP });
    await read(general, "/api/v1/prices/?barcode=7290000000026", { ...live, ...GZIP });
    const quota = () => (ctx.deps.access.quota.usedThisMonth as (subject: string, now: Date) => number)(`account:${newKeyAccount(live)}`, ctx.deps.now());
    const used = quota();
    expect(at(PATH, { ...live, ...GZIP })).toBeInstanceOf(Response);
    expect(quota()).toBe(used + 1);
    const declined: [string, Record<string, string>][] = [
      [PATH, live], // no gzip
      [PATH, { ...live, "accept-encoding": "gzip;q=0" }],
      [PATH, { ...live, ...GZIP, origin: "https://shop.example" }],
      [PATH, GZIP], // no key
      [PATH, { ...GZIP, "x-api-key": "  " }],
      [PATH, { ...GZIP, "x-api-key": `sk_live_${"x".repeat(32)}` }], // unknown
      [PATH, { ...GZIP, ...newKey(ctx.deps, "pro", "test").headers }],
      [PATH, { ...GZIP, ...newKey(ctx.deps, "pro", "publishable").headers }],
      ["/api/v1/prices/", { ...live, ...GZIP }],
      [`${PATH}&granularity=chain`, { ...live, ...GZIP }],
      [`${PATH}&chain_id=shufersal`, { ...live, ...GZIP }],
      [`/api/v1/prices/?granularity=chain&barcode=${BARCODE}`, { ...live, ...GZIP }],
      [`/api/v1/prices/?barcode=%37290000066318`, { ...live, ...GZIP }],
      [`/api/v1/prices/?barcode=${BARCODE}%00`, { ...live, ...GZIP }],
      [`/api/v1/prices/?barcode=abc`, { ...live, ...GZIP }],
      [`/api/v1/prices/?barcode=7290000000019`, { ...live, ...GZIP }], // never asked: not held
      [`/api/v1/prices/?barcode=7290000000026`, { ...live, ...GZIP }], // held after a request, but under 1 KB: sent plain
    ];
    for (const [path, headers] of declined) expect({ path, headers, answered: at(path, headers) }).toEqual({ path, headers, answered: undefined });
    expect(quota()).toBe(used + 1);
  });

  test("a spent bucket: declined with the month's call given back; the general steps refuse it as the lifecycle does", async () => {
    const key = newKey(ctx.deps, "free", "live");
    const ask = { ...key.headers, ...GZIP };
    await read(general, PATH, ask);
    // Free: 8 a minute, a burst of 2; one token went above, one is left; the quota (3) has 2 left.
    expect(at(PATH, ask)).toBeInstanceOf(Response);
    const used = (ctx.deps.access.quota.usedThisMonth as (subject: string, now: Date) => number)(`account:${key.accountId}`, ctx.deps.now());
    expect(at(PATH, ask)).toBeUndefined();
    expect((ctx.deps.access.quota.usedThisMonth as (subject: string, now: Date) => number)(`account:${key.accountId}`, ctx.deps.now())).toBe(used);
    const fast = await read(express, PATH, ask);
    const routed = await read(lifecycle, PATH, ask);
    expect(fast.status).toBe(429);
    expect(fast.body.code).toBe("rate_limited");
    expect({ ...fast, id: undefined }).toEqual({ ...routed, id: undefined });
  });

  test("a spent month: declined with no token taken; the general steps refuse it as the lifecycle does", async () => {
    const pro = newKey(ctx.deps, "pro", "live");
    // A Free account (a quota of 3 calls, a burst of 2): a second key on it takes two calls and is
    // then rate limited (its bucket empty, nothing counted); the first key takes the third call.
    const free = newKey(ctx.deps, "free", "live");
    const other = newKey(ctx.deps, "free", "live", { accountId: free.accountId });
    await read(general, PATH, { ...pro.headers, ...GZIP });
    for (let i = 0; i < 3; i++) expect((await read(general, PATH, { ...other.headers, ...GZIP })).status).toBe(i < 2 ? 200 : 429);
    const before = ctx.deps.access.limiter.peek(`key:${free.keyId}`, 8) as { remaining: number };
    expect(before.remaining).toBe(2);
    expect((ctx.deps.access.quota.usedThisMonth as (subject: string, now: Date) => number)(`account:${free.accountId}`, ctx.deps.now())).toBe(2);
    expect((await read(general, PATH, { ...free.headers, ...GZIP })).status).toBe(200);
    expect(at(PATH, { ...free.headers, ...GZIP })).toBeUndefined();
    expect((ctx.deps.access.limiter.peek(`key:${free.keyId}`, 8) as { remaining: number }).remaining).toBe(1);
    const fast = await read(express, PATH, { ...free.headers, ...GZIP });
    expect(fast.status).toBe(429);
    expect(fast.body.code).toBe("quota_exceeded");
  });
});

describe("behind a trusted proxy", () => {
  const proxied = testApp({ trustProxy: true });
  const general2 = createApp(proxied.deps, { expressLane: false });
  beforeAll(() => {
    const f = new Fixture(proxied.db.prices, proxied.chainIds);
    const milk = f.product(BARCODE, "חלב 3% 1 ליטר", { manufacturer: "תנובה", sizeAmount: 1000, sizeUnit: "ml" });
    CHAINS.forEach((chain, i) => f.price(f.store(chain, "1"), milk, 600 + i));
    commitData(proxied.deps);
  });

  test("the proxy's X-Request-Id is the request's id, and the client is the forwarded address", async () => {
    const { headers } = newKey(proxied.deps, "pro", "live");
    const ask = { ...headers, ...GZIP, "x-request-id": "proxy-req-1", "x-forwarded-for": "203.0.113.9, 10.0.0.1" };
    await read(general2, PATH, ask);
    let fast!: Awaited<ReturnType<typeof read>>;
    let slow!: Awaited<ReturnType<typeof read>>;
    const lines = await requestLines(async () => {
      fast = await read(proxied.app, PATH, ask);
      slow = await read(general2, PATH, ask);
    });
    expect(fast.id).toBe("proxy-req-1");
    expect(fast.rawMeta.request_id).toBe("proxy-req-1");
    expect(fast.stable).toEqual(slow.stable);
    expect(lines.map((l) => ({ ...l, time: undefined, duration_ms: undefined }))).toEqual([
      { ...lines[1], time: undefined, duration_ms: undefined },
      { ...lines[1], time: undefined, duration_ms: undefined },
    ]);
    expect(lines[0]).toMatchObject({ request_id: "proxy-req-1", client: "203.0.113.9" });
    expect(lines[0]!.client_request_id).toBeUndefined();
  });
});

test("no express admission with access state in a shared store (a cluster's): every request takes the general steps", () => {
  const local = ctx.deps.access;
  const shared = { ...local, keys: { lookup: (presented: string) => Promise.resolve(local.keys.lookup(presented)) } };
  expect(expressAccess(shared as typeof local, ctx.deps.settings, ctx.deps.dataSets.live, ctx.deps.pacing.loadMeter)).toBeNull();
  expect(expressAccess(local, ctx.deps.settings, ctx.deps.dataSets.live, ctx.deps.pacing.loadMeter)).not.toBeNull();
});

test("request ids: the process's prefix and a counter of 16 hex digits, one more each time", () => {
  const ids = Array.from({ length: 5000 }, () => nextRequestId());
  for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{32}$/);
  const counters = ids.map((id) => BigInt(`0x${id.slice(20)}`));
  for (let i = 1; i < counters.length; i++) expect(counters[i]! - counters[i - 1]!).toBe(1n);
  expect(new Set(ids.map((id) => id.slice(0, 20))).size).toBe(1);
});

/** The account of a key's headers (newKey made it): read back from the accounts database. */
function newKeyAccount(headers: Record<string, string>): number {
  const key = ctx.deps.access.keys.lookup(headers["x-api-key"]!) as { accountId: number };
  return key.accountId;
}
