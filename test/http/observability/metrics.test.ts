import { beforeAll, describe, expect, spyOn, test } from "bun:test";
import { testApp, commitData, get, settle } from "../../helpers/app.ts";
import { Fixture } from "../../helpers/fixture.ts";
import { newKey } from "../../helpers/keys.ts";
import { loadSettings } from "../../../src/config.ts";
import { log } from "../../../src/lib/log.ts";
import { RequestObserver } from "../../../src/http/observability/plugin.ts";
import { RouteTable } from "../../../src/http/routes.ts";
import { ApiError } from "../../../src/errors/api-error.ts";
import { problemBody } from "../../../src/http/encoding/problem.ts";

/** Parses Prometheus text into `name{labels}` → value. */
function parse(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

// Clock pinned: 2026-11-22T10:00:00Z = 12:00 Israel time.
const ctx = testApp({ settings: loadSettings({ MEHIR_QUOTA_FREE: "1" }) });
let pro: Record<string, string>;
let freeLive: Record<string, string>;

beforeAll(async () => {
  const f = new Fixture(ctx.db.prices, ctx.chainIds);
  const s = f.store("shufersal", "1");
  f.price(s, f.product("7290000066318", "חלב"), 690);
  ctx.db.prices.run(
    // The fetch runs were recorded before runs kept their measured duration (NULL: the timestamps,
    // whole seconds, stand in); the cli run measured 3.75 s between timestamps 4 s apart.
    `INSERT INTO import_runs (started_at, finished_at, duration_ms, origin, status, files, rows) VALUES
       ('2026-11-21T05:30:00+02:00', '2026-11-21T05:32:00+02:00', NULL, 'fetch', 'ok', 10, 1000),
       ('2026-11-22T05:30:00+02:00', '2026-11-22T05:30:30+02:00', NULL, 'fetch', 'failed', 2, 5),
       ('2026-11-22T06:00:00+02:00', '2026-11-22T06:00:04+02:00', 3750, 'cli', 'partial', 3, 300),
       ('2026-11-22T11:59:00+02:00', NULL, NULL, 'fetch', 'running', 0, 0)`,
  );
  ctx.db.prices.run(
    `INSERT INTO chain_health (chain_slug, last_data_at) VALUES ('shufersal', '2026-11-22T09:00:00+02:00'), ('rami-levy', '2026-11-20T12:00:00+02:00')`,
  );
  commitData(ctx.deps, "2026-11-22T06:00:04+02:00");
  pro = newKey(ctx.deps, "pro").headers;
  freeLive = newKey(ctx.deps, "free", "live").headers;
});

async function metrics() {
  const res = ctx.deps.metricsEndpoint!(new Request("http://localhost/metrics"));
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  const text = await res.text();
  return { text, values: parse(text) };
}

describe("GET /metrics", () => {
  test("counts requests by method, route pattern and status, with a latency histogram per route", async () => {
    await get(ctx.app, "/api/v1/prices/?barcode=7290000066318", pro);
    await get(ctx.app, "/api/v1/prices?barcode=7290000066318", pro);
    await get(ctx.app, "/api/v1/prices/?barcode=1234", pro); // 404 product_not_found
    await get(ctx.app, "/api/v1/prices/?barcode=abc", pro); // 400
    await get(ctx.app, "/api/v1/prices/7290000066318/history/", pro);
    await get(ctx.app, "/no/such/path"); // 404, no route
    await ctx.app.handle(new Request("http://localhost/api/v1/basket/compare/", { method: "GET", headers: pro })); // 405
    await get(ctx.app, "/api/v1/prices/?barcode=7290000066318"); // 401 missing key
    await settle(); // onAfterResponse runs after the answer
    const { values } = await metrics();
    expect(values.get('mehir_http_requests_total{method="GET",route="/api/v1/prices",status="200"}')).toBe(2);
    expect(values.get('mehir_http_requests_total{method="GET",route="/api/v1/prices",status="404"}')).toBe(1);
    expect(values.get('mehir_http_requests_total{method="GET",route="/api/v1/prices",status="400"}')).toBe(1);
    expect(values.get('mehir_http_requests_total{method="GET",route="/api/v1/prices/:barcode/history",status="200"}')).toBe(1);
    expect(values.get('mehir_http_requests_total{method="GET",route="unmatched",status="404"}')).toBe(1);
    expect(values.get('mehir_http_requests_total{method="GET",route="unmatched",status="405"}')).toBe(1);
    expect(values.get('mehir_http_requests_total{method="GET",route="/api/v1/prices",status="401"}')).toBe(1);
    // Histogram: cumulative buckets, +Inf = count, count = all answers of the route.
    const route = 'route="/api/v1/prices"';
    expect(values.get(`mehir_http_request_duration_seconds_count{${route}}`)).toBe(5);
    expect(values.get(`mehir_http_request_duration_seconds_bucket{${route},le="+Inf"}`)).toBe(5);
    const buckets = [...values].filter(([k]) => k.startsWith(`mehir_http_request_duration_seconds_bucket{${route},`)).map(([, v]) => v);
    expect(buckets.length).toBe(15);
    for (let i = 1; i < buckets.length; i++) expect(buckets[i]!).toBeGreaterThanOrEqual(buckets[i - 1]!);
    expect(values.get(`mehir_http_request_duration_seconds_sum{${route}}`)!).toBeGreaterThan(0);
  });

  test("answers given before routing are counted too: a 304 decided by the access layer, a 414", async () => {
    const count = (values: Map<string, number>, route: string, status: number) => values.get(`mehir_http_requests_total{method="GET",route="${route}",status="${status}"}`) ?? 0;
    const before = (await metrics()).values;
    for (const path of ["/api/v1/prices/?barcode=7290000066318", "/api/v1/prices/7290000066318/history/"]) {
      const first = await ctx.app.handle(new Request(`http://localhost${path}`, { headers: pro }));
      const again = await ctx.app.handle(new Request(`http://localhost${path}`, { headers: { ...pro, "if-none-match": first.headers.get("etag")! } }));
      expect(again.status).toBe(304);
    }
    const long = await ctx.app.handle(new Request(`http://localhost/api/v1/prices/?barcode=${"1".repeat(9000)}`, { headers: pro }));
    expect(long.status).toBe(414);
    await settle(); // onAfterResponse runs after the answer (the two 200s)
    const after = (await metrics()).values;
    expect(count(after, "/api/v1/prices", 304) - count(before, "/api/v1/prices", 304)).toBe(1);
    expect(count(after, "/api/v1/prices/:barcode/history", 304) - count(before, "/api/v1/prices/:barcode/history", 304)).toBe(1);
    expect(count(after, "/api/v1/prices", 414) - count(before, "/api/v1/prices", 414)).toBe(1);
  });

  test("answers per cache: computed once, then from the cache", async () => {
    const count = (values: Map<string, number>, outcome: string) => values.get(`mehir_answers_total{data_set="live",cache="store-prices",outcome="${outcome}"}`) ?? 0;
    const before = (await metrics()).values;
    const path = "/api/v1/prices/?barcode=7290000066318&granularity=store"; // a key no other test asks for (store answers: their own cache)
    expect((await get(ctx.app, path, pro)).status).toBe(200);
    expect((await get(ctx.app, path, pro)).status).toBe(200);
    const after = (await metrics()).values;
    expect(count(after, "computed") - count(before, "computed")).toBe(1);
    expect(count(after, "hit") - count(before, "hit")).toBe(1);
    expect(count(after, "stale")).toBe(0);
  });

  test("counts quota rejections (quota_exceeded), not other 429s", async () => {
    const before = (await metrics()).values.get("mehir_quota_rejections_total");
    expect(before).toBe(0);
    expect((await get(ctx.app, "/api/v1/prices/?barcode=7290000066318", freeLive)).status).toBe(200);
    const refused = await get(ctx.app, "/api/v1/prices/?barcode=7290000066318", freeLive);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe("quota_exceeded");
    await settle();
    const { values } = await metrics();
    expect(values.get("mehir_quota_rejections_total")).toBe(1);
    expect(values.get("mehir_rate_limited_total")).toBe(0);
  });

  test("import runs, rows and durations from import_runs; freshness per chain from chain_health", async () => {
    const { values, text } = await metrics();
    expect(values.get('mehir_import_runs_total{origin="fetch",status="ok"}')).toBe(1);
    expect(values.get('mehir_import_runs_total{origin="fetch",status="failed"}')).toBe(1);
    expect(values.get('mehir_import_runs_total{origin="fetch",status="running"}')).toBe(1);
    expect(values.get('mehir_import_runs_total{origin="cli",status="partial"}')).toBe(1);
    expect(values.get('mehir_import_rows_total{origin="fetch"}')).toBe(1005);
    expect(values.get('mehir_import_rows_total{origin="cli"}')).toBe(300);
    // fetch: 120 s and 30 s; cli: 3.75 s.
    expect(values.get('mehir_import_duration_seconds_count{origin="fetch"}')).toBe(2);
    expect(values.get('mehir_import_duration_seconds_sum{origin="fetch"}')).toBe(150);
    expect(values.get('mehir_import_duration_seconds_bucket{origin="fetch",le="30"}')).toBe(1);
    expect(values.get('mehir_import_duration_seconds_bucket{origin="fetch",le="120"}')).toBe(2);
    expect(values.get('mehir_import_duration_seconds_bucket{origin="cli",le="5"}')).toBe(1);
    expect(values.get('mehir_import_duration_seconds_sum{origin="cli"}')).toBe(3.75);
    // A 'running' row is not what tells (runs are recorded after their commit): the write lock is,
    // and nothing holds it here (see data-metrics.test.ts and the live test for a real import).
    expect(values.get("mehir_import_running")).toBe(0);
    expect(values.get("mehir_import_last_duration_seconds")).toBe(3.75);
    expect(values.get("mehir_import_last_rows")).toBe(300);
    expect(values.get("mehir_import_last_success_timestamp_seconds")).toBe(Date.parse("2026-11-22T06:00:04+02:00") / 1000);
    // now = 12:00 Israel: shufersal's newest data is 3 h old, rami-levy's 48 h.
    expect(values.get('mehir_chain_data_age_seconds{chain="shufersal"}')).toBe(3 * 3600);
    expect(values.get('mehir_chain_data_age_seconds{chain="rami-levy"}')).toBe(48 * 3600);
    expect(values.get('mehir_chain_last_data_timestamp_seconds{chain="shufersal"}')).toBe(Date.parse("2026-11-22T09:00:00+02:00") / 1000);
    expect(values.get("mehir_data_version")).toBe(1);
    // Each database's size and free pages (what pruning freed).
    for (const db of ["prices", "accounts"]) {
      expect(values.get(`mehir_database_size_bytes{db="${db}"}`)!).toBeGreaterThan(0);
      expect(values.get(`mehir_database_free_pages{db="${db}"}`)).toBeGreaterThanOrEqual(0);
    }
    expect(values.get("process_resident_memory_bytes")!).toBeGreaterThan(1_000_000);
    expect(values.get("mehir_js_heap_used_bytes")!).toBeGreaterThan(0);
    // Every family is typed.
    for (const name of ["mehir_http_requests_total", "mehir_import_duration_seconds", "mehir_chain_data_age_seconds", "process_resident_memory_bytes"]) {
      expect(text).toContain(`# TYPE ${name} `);
    }
  });

  test("/metrics is never served on the API port (its own listener serves it), and with the setting off there is none", async () => {
    for (const app of [ctx.app, testApp({ settings: loadSettings({ MEHIR_METRICS: "off" }) }).app]) {
      const res = await get(app, "/metrics");
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect(res.body.code).toBe("not_found");
    }
    expect(testApp({ settings: loadSettings({ MEHIR_METRICS: "off" }) }).deps.metricsEndpoint).toBeUndefined();
    // The listener answers /metrics only.
    const other = ctx.deps.metricsEndpoint!(new Request("http://localhost/api/v1/chains/"));
    expect(other.status).toBe(404);
    expect(((await other.json()) as { code: string }).code).toBe("not_found");
  });
});

describe("request log", () => {
  test("one JSON line per request: id, method, route pattern, status, duration, key prefix, client", async () => {
    const lines: Record<string, unknown>[] = [];
    const info = spyOn(log, "info").mockImplementation((msg: string, fields: Record<string, unknown> = {}) => void lines.push({ msg, ...fields }));
    const warn = spyOn(log, "warn").mockImplementation(() => {});
    try {
      const ok = await get(ctx.app, "/api/v1/prices/?barcode=7290000066318", { ...pro, "x-request-id": "trace-123" });
      const missing = await get(ctx.app, "/api/v1/prices/?barcode=999", pro);
      await settle();
      // Other tests' answers may still be logging (onAfterResponse runs later): pick ours by id.
      const ids = [ok.headers.get("x-request-id"), missing.body.request_id];
      const requests = lines.filter((l) => l.msg === "request" && ids.includes(l.request_id));
      expect(requests.length).toBe(2);
      const [first, second] = requests as Record<string, any>[];
      // The client's own id is logged beside the server's (never taken as the request's: no trusted proxy).
      expect(first).toMatchObject({ request_id: ok.headers.get("x-request-id"), client_request_id: "trace-123", method: "GET", route: "/api/v1/prices", status: 200, client: "unknown" });
      expect(first!.key_prefix).toBe(pro["x-api-key"]!.slice(0, 12));
      expect(typeof first!.duration_ms).toBe("number");
      expect(first!.duration_ms).toBeGreaterThanOrEqual(0);
      expect(first!.error_code).toBeUndefined();
      expect(second).toMatchObject({ request_id: missing.body.request_id, status: 404, error_code: "product_not_found" });
    } finally {
      info.mockRestore();
      warn.mockRestore();
    }
  });

  test("behind a trusted proxy the client is taken from X-Forwarded-For, the request's id from X-Request-Id", async () => {
    const proxied = testApp({ settings: loadSettings({ MEHIR_TRUST_PROXY: "on" }) });
    const lines: Record<string, unknown>[] = [];
    const info = spyOn(log, "info").mockImplementation((msg: string, fields: Record<string, unknown> = {}) => void lines.push({ msg, ...fields }));
    try {
      const res = await get(proxied.app, "/healthz", { "x-forwarded-for": "203.0.113.7", "x-request-id": "proxy-7f3a" });
      expect(res.headers.get("x-request-id")).toBe("proxy-7f3a");
      await settle();
      const line = lines.find((l) => l.msg === "request" && l.route === "/healthz");
      expect(line).toMatchObject({ request_id: "proxy-7f3a", route: "/healthz", status: 200, client: "203.0.113.7", key_prefix: null });
      expect(line).not.toHaveProperty("client_request_id");
    } finally {
      info.mockRestore();
    }
  });
});

describe("request log: an error's reason", () => {
  test("the reason an error carries (why Redis was unavailable) is on its log line and not in the answer", () => {
    const observer = new RequestObserver(new RouteTable(() => [], []), false);
    const lines: Record<string, unknown>[] = [];
    const info = spyOn(log, "info").mockImplementation((msg: string, fields: Record<string, unknown> = {}) => void lines.push({ msg, ...fields }));
    try {
      const request = new Request("http://localhost/api/v1/prices/?barcode=7290000066318");
      const error = new ApiError("service_unavailable", "Keys and usage counters are unreachable for a moment; retry shortly.", { reason: "Redis did not answer within 1000 ms" });
      observer.started(request, null);
      observer.ended(request, "/api/v1/prices/", { set: { status: 503 }, error, code: "service_unavailable" });
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ msg: "request", route: "/api/v1/prices", status: 503, error_code: "service_unavailable", error_reason: "Redis did not answer within 1000 ms" });
      expect(JSON.stringify(problemBody(error, "req_1"))).not.toContain("Redis");
    } finally {
      info.mockRestore();
    }
  });
});

describe("request log over a real socket", () => {
  /** Resolves with the request line of the request sent with `X-Request-Id: id` (logged as `client_request_id`) when the app logs it (onAfterResponse runs after the answer). */
  function lineOf(lines: Map<string, (line: Record<string, unknown>) => void>, id: string): Promise<Record<string, any>> {
    return new Promise((resolve) => lines.set(id, resolve));
  }

  test("every line carries the client's address (read before the answer: after it the socket's peer is gone); unmatched paths log the path, bounded, without the query", async () => {
    const served = testApp();
    served.app.listen({ port: 0, hostname: "127.0.0.1" });
    const waiting = new Map<string, (line: Record<string, unknown>) => void>();
    const onLine = (msg: string, fields: Record<string, unknown> = {}) => {
      if (msg === "request") waiting.get(fields.client_request_id as string)?.({ msg, ...fields });
    };
    const info = spyOn(log, "info").mockImplementation(onLine);
    const warn = spyOn(log, "warn").mockImplementation(onLine);
    try {
      const base = `http://127.0.0.1:${served.app.server!.port}`;
      const call = async (path: string, id: string, headers: Record<string, string> = {}) => {
        const logged = lineOf(waiting, id);
        const res = await fetch(base + path, { headers: { "x-request-id": id, ...headers } });
        await res.arrayBuffer();
        return { res, line: await logged };
      };
      const health = await call("/healthz", "sock-1");
      expect(health.line).toMatchObject({ route: "/healthz", status: 200, client: "127.0.0.1" });
      const refused = await call("/api/v1/prices/?barcode=1", "sock-2", { "x-api-key": "sk_live_nonsense" });
      expect(refused.line).toMatchObject({ route: "/api/v1/prices", status: 401, client: "127.0.0.1", error_code: "invalid_api_key" });
      const long = "/no/such/" + "x".repeat(500);
      const unmatched = await call(`${long}?key=sk_live_secret`, "sock-3");
      expect(unmatched.res.status).toBe(404);
      expect(unmatched.line).toMatchObject({ route: "unmatched", status: 404, client: "127.0.0.1" });
      expect(unmatched.line.path).toBe(long.slice(0, 200) + "…");
      const short = await call("/wp-login.php?user=x", "sock-4");
      expect(short.line.path).toBe("/wp-login.php");
      expect(JSON.stringify([unmatched.line, short.line])).not.toContain("?");
      expect((await call("/healthz", "sock-5")).line.path).toBeUndefined();
    } finally {
      info.mockRestore();
      warn.mockRestore();
      await served.app.stop();
    }
  });

  test("/favicon.ico answers with an icon, not a 404", async () => {
    const res = await ctx.app.handle(new Request("http://localhost/favicon.ico"));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/x-icon");
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([...bytes.slice(0, 4)]).toEqual([0, 0, 1, 0]); // ICO header: reserved, type icon
    expect([...bytes.slice(22, 26)]).toEqual([0x89, 0x50, 0x4e, 0x47]); // its image is a PNG
  });
});
