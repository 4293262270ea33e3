import { expect, test } from "bun:test";
import { prettyLine } from "../../src/lib/pretty-log.ts";

const T = "2026-11-29T08:00:00.123Z";

test("the events a newcomer watches are sentences; requests are one short line; the rest key=value", () => {
  expect(prettyLine(T, "info", "listening", { url: "http://127.0.0.1:8080", data_dir: "./mehir-data", source: "demo", data_version: 0 })).toBe(
    "08:00:00 mehir is listening on http://127.0.0.1:8080 (data: ./mehir-data, demo data; preparing it first — the API answers 503 data_not_ready until ready)",
  );
  expect(prettyLine(T, "info", "import: progress", { origin: "demo", files_done: 1170, files_total: 2920, percent: 40 })).toBe(
    "08:00:00 importing the demo data: 40% (1,170 of 2,920 files)",
  );
  expect(prettyLine(T, "info", "search index built", { data_version: 1, products: 4696, ms: 297 })).toBe("08:00:00 search index built: 4,696 products (0.3 s)");
  expect(prettyLine(T, "info", "ready", { url: "http://127.0.0.1:8080", docs: "http://127.0.0.1:8080/docs", portal: "http://127.0.0.1:8080/portal/" })).toBe(
    "08:00:00 ready — http://127.0.0.1:8080 · docs http://127.0.0.1:8080/docs · portal http://127.0.0.1:8080/portal/",
  );
  expect(prettyLine(T, "info", "request", { method: "GET", route: "/api/v1/prices", status: 200, duration_ms: 1.234 })).toBe("08:00:00 GET /api/v1/prices 200 1.2 ms");
  expect(prettyLine(T, "warn", "fetch: chain is stale", { chain: "osher-ad", reason: "no file for 2 days" })).toBe(
    '08:00:00 WARN fetch: chain is stale chain=osher-ad reason="no file for 2 days"',
  );
});
