/**
 * Rules of the contract this file checks directly: the app's own URL limit (414 problem+json
 * below the runtime's 16 KiB), `If-None-Match: *` (304 when the answer exists), an unknown
 * `city` (404 city_not_found wherever city filters), and an uncounted 403 plan_upgrade_required.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { MAX_URL_BYTES } from "../../src/app.ts";
import { testApp } from "../helpers/app.ts";
import { newKey } from "../helpers/keys.ts";
import { call, importMilk, MILK } from "../helpers/access.ts";

const PROBLEM = "application/problem+json; charset=utf-8";
const ctx = testApp({ env: { MEHIR_RATE_PRO: "100000" } });
let pro = "";
beforeAll(() => {
  importMilk(ctx);
  pro = newKey(ctx.deps, "pro", "live").key;
});
const withKey = (key: string, headers: Record<string, string> = {}) => ({ headers: { "x-api-key": key, ...headers } });

describe("URL length", () => {
  test("a URL over 8 KiB is 414 uri_too_long as problem+json with the request id; 8 KiB exactly is answered", async () => {
    const base = `/api/v1/prices/?barcode=${MILK}&pad=`;
    const long = await call(ctx.app, base + "x".repeat(MAX_URL_BYTES - base.length + 1), withKey(pro));
    expect(long.status).toBe(414);
    expect(long.headers.get("content-type")).toBe(PROBLEM);
    expect(long.body).toMatchObject({ code: "uri_too_long", status: 414, type: "/docs/errors#uri_too_long" });
    expect(long.body.request_id).toBe(long.headers.get("x-request-id"));
    const fits = await call(ctx.app, base + "x".repeat(MAX_URL_BYTES - base.length), withKey(pro));
    expect(fits.status).toBe(200);
  });

  test("the limit is below the runtime's: over a real socket a 9 KiB URL gets the app's 414, not a bare status", async () => {
    const server = ctx.app.listen({ port: 0, hostname: "127.0.0.1" });
    try {
      const res = await fetch(`http://127.0.0.1:${server.server!.port}/healthz?pad=${"x".repeat(9 * 1024)}`);
      expect(res.status).toBe(414);
      expect(res.headers.get("content-type")).toBe(PROBLEM);
      expect(((await res.json()) as { code: string }).code).toBe("uri_too_long");
    } finally {
      await ctx.app.stop();
    }
  });
});

describe("If-None-Match: *", () => {
  test("304 when the answer exists, not counted; the error when it does not", async () => {
    const first = await call(ctx.app, `/api/v1/prices/?barcode=${MILK}`, withKey(pro));
    const remaining = first.body.meta.quota_remaining;
    const star = await call(ctx.app, `/api/v1/prices/?barcode=${MILK}`, withKey(pro, { "if-none-match": "*" }));
    expect(star.status).toBe(304);
    expect(star.body ?? "").toBe("");
    expect(star.headers.get("etag")).toBe(first.headers.get("etag"));
    const after = await call(ctx.app, `/api/v1/prices/?barcode=${MILK}`, withKey(pro));
    expect(after.body.meta.quota_remaining).toBe(remaining - 1); // the 304 was not counted
    const missing = await call(ctx.app, "/api/v1/prices/?barcode=7290000000001", withKey(pro, { "if-none-match": "*" }));
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("product_not_found");
  });
});

describe("unknown city", () => {
  test("404 city_not_found naming `city` wherever city filters; a known city with no stores is an empty answer", async () => {
    const unknown = encodeURIComponent("עיר שאיננה");
    const cases: [string, string, unknown?][] = [
      ["GET", `/api/v1/prices/?barcode=${MILK}&city=${unknown}`],
      ["GET", `/api/v1/stores/?city=${unknown}`],
      ["POST", "/api/v1/prices/batch/", { items: [{ barcode: MILK }], city: "עיר שאיננה" }],
      ["POST", "/api/v1/basket/compare/", { items: [{ barcode: MILK, quantity: 1 }], city: "עיר שאיננה" }],
    ];
    for (const [method, path, body] of cases) {
      const res = await call(ctx.app, path, { method, headers: { "x-api-key": pro, "content-type": "application/json" }, body: body ? JSON.stringify(body) : undefined });
      expect(res.status, path).toBe(404);
      expect(res.body).toMatchObject({ code: "city_not_found", param: "city", type: "/docs/errors#city_not_found" });
    }
    // Eilat is a known locality without stores in this data: 200, no stores.
    const known = await call(ctx.app, `/api/v1/stores/?city=${encodeURIComponent("אילת")}`, withKey(pro));
    expect(known.status).toBe(200);
    expect(known.body.data).toEqual([]);
  });

  test("/docs/errors lists city_not_found and uri_too_long", async () => {
    const page = await call(ctx.app, "/docs/errors");
    expect(page.body).toContain('id="city_not_found"');
    expect(page.body).toContain('id="uri_too_long"');
  });
});

describe("plan gate", () => {
  test("403 plan_upgrade_required is not counted", async () => {
    const free = newKey(ctx.deps, "free", "live").key;
    const before = await call(ctx.app, "/api/v1/chains/", withKey(free));
    const refused = await call(ctx.app, "/api/v1/promos/feed/", withKey(free));
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("plan_upgrade_required");
    const after = await call(ctx.app, "/api/v1/chains/", withKey(free));
    expect(after.body.meta.quota_remaining).toBe(before.body.meta.quota_remaining - 1);
  });
});
