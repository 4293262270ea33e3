import { describe, expect, test } from "bun:test";
import { Counter, Histogram, escapeLabel, formatValue } from "../../../src/lib/prometheus.ts";
import { RouteTable } from "../../../src/http/routes.ts";
import { HttpMetrics, LATENCY_BUCKETS } from "../../../src/http/observability/http-metrics.ts";

describe("Prometheus text", () => {
  test("label values escape backslash, quote and newline; values print like Prometheus", () => {
    expect(escapeLabel('a"b\\c\nd')).toBe('a\\"b\\\\c\\nd');
    expect(formatValue(Infinity)).toBe("+Inf");
    expect(formatValue(NaN)).toBe("NaN");
    expect(formatValue(0.1 + 0.2)).toBe("0.3");
    expect(formatValue(42)).toBe("42");
  });

  test("counters keep one series per label set", () => {
    const c = new Counter("x_total", "help");
    c.inc({ route: "/a", status: "200" });
    c.inc({ route: "/a", status: "200" }, 2);
    c.inc({ route: "/b", status: "404" });
    expect(c.render()).toBe('# HELP x_total help\n# TYPE x_total counter\nx_total{route="/a",status="200"} 3\nx_total{route="/b",status="404"} 1\n');
  });

  test("histograms render cumulative buckets, +Inf, sum and count", () => {
    const h = new Histogram("d_seconds", "help", [0.01, 0.1]);
    for (const v of [0.005, 0.05, 0.05, 3]) h.observe({ route: "/a" }, v);
    expect(h.render()).toBe(
      "# HELP d_seconds help\n# TYPE d_seconds histogram\n" +
        'd_seconds_bucket{route="/a",le="0.01"} 1\nd_seconds_bucket{route="/a",le="0.1"} 3\nd_seconds_bucket{route="/a",le="+Inf"} 4\n' +
        'd_seconds_sum{route="/a"} 3.105\nd_seconds_count{route="/a"} 4\n',
    );
  });
});

describe("HttpMetrics", () => {
  test("requests recorded through its held series render as counting each by its labels would", () => {
    const metrics = new HttpMetrics();
    const requests = new Counter("mehir_http_requests_total", "HTTP requests answered, by method, route pattern and status");
    const latency = new Histogram("mehir_http_request_duration_seconds", "Time from receiving a request to handing its answer to the server, by route pattern", LATENCY_BUCKETS);
    const records = [
      { method: "GET", route: "/api/v1/prices", status: 200, seconds: 0.0004 },
      { method: "GET", route: "/api/v1/prices", status: 200, seconds: 0.003 },
      { method: "POST", route: "/api/v1/prices/batch", status: 200, seconds: 0.02 },
      { method: "GET", route: "/api/v1/prices", status: 429, seconds: 0.0001 },
      { method: "HEAD", route: "/api/v1/prices", status: 200, seconds: 7 },
      { method: "GET", route: "unmatched", status: 404, seconds: 0.001 },
      { method: "GET", route: "/api/v1/prices", status: 200, seconds: 0.0004 },
    ];
    for (const r of records) {
      metrics.record({ ...r, errorCode: null });
      requests.inc({ method: r.method, route: r.route, status: String(r.status) });
      latency.observe({ route: r.route }, r.seconds);
    }
    // Another Counter's series of the same labels, counted through inc (one map of series either way).
    metrics.requests.inc({ method: "GET", route: "/api/v1/prices", status: "200" });
    requests.inc({ method: "GET", route: "/api/v1/prices", status: "200" });
    expect(metrics.requests.render()).toBe(requests.render());
    expect(metrics.latency.render()).toBe(latency.render());
    expect(metrics.requests.get({ method: "GET", route: "/api/v1/prices", status: "200" })).toBe(4);
  });
});

describe("RouteTable", () => {
  const patterns = new RouteTable(() => [
    { method: "GET", path: "/api/v1/prices" },
    { method: "GET", path: "/api/v1/prices/:barcode/history" },
    { method: "POST", path: "/api/v1/basket/compare" },
    { method: "GET", path: "/widget/v1/:file" },
    { method: "GET", path: "/widget/v1/demo.html" },
  ], []);
  test("matches with or without the trailing slash, params as one segment, HEAD as GET", () => {
    expect(patterns.match("GET", "/api/v1/prices/")?.path).toBe("/api/v1/prices");
    expect(patterns.match("HEAD", "/api/v1/prices")?.path).toBe("/api/v1/prices");
    expect(patterns.match("GET", "/api/v1/prices/729/history/")?.path).toBe("/api/v1/prices/:barcode/history");
    expect(patterns.match("GET", "/api/v1/prices/729/x/history")).toBeNull();
    expect(patterns.match("GET", "/api/v1/basket/compare")).toBeNull();
    expect(patterns.methodsFor("/api/v1/basket/compare/")).toEqual(["POST"]);
    expect(patterns.methodsFor("/nope")).toEqual([]);
  });
  test("a static route before a parametric one, as Elysia routes", () => {
    expect(patterns.match("GET", "/widget/v1/demo.html")?.path).toBe("/widget/v1/demo.html");
    expect(patterns.match("GET", "/widget/v1/widget.js")?.path).toBe("/widget/v1/:file");
  });
});
