import { describe, expect, test } from "bun:test";
import { revokeKeyById } from "../../src/accounts/keys.ts";
import { testApp } from "../helpers/app.ts";
import { newKey } from "../helpers/keys.ts";
import { call, importMilk, MILK, settle, withApiKey } from "../helpers/access.ts";

const PROBLEM = "application/problem+json; charset=utf-8";

describe("authentication errors", () => {
  test("no key: 401 missing_api_key as problem+json, with the address's rate-limit headers", async () => {
    const ctx = testApp();
    const res = await call(ctx.app, "/api/v1/chains/");
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toBe(PROBLEM);
    expect(res.body).toMatchObject({ code: "missing_api_key", status: 401, type: "/docs/errors#missing_api_key" });
    expect(res.body.request_id).toBe(res.headers.get("x-request-id"));
    expect(res.headers.get("x-ratelimit-limit")).toBe("60");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("14");
    expect(res.headers.get("x-quota-limit")).toBeNull();
  });

  test("malformed, unknown and revoked keys: 401 invalid_api_key", async () => {
    const ctx = testApp();
    const { key, keyId } = newKey(ctx.deps, "free", "live");
    for (const bad of ["nonsense", "sk_live_short", key + "x", "sk_live_" + "A".repeat(32), key.replace("sk_live_", "sk_prod_")]) {
      const res = await call(ctx.app, "/api/v1/chains/", withApiKey(bad));
      expect(res.status, bad).toBe(401);
      expect(res.body.code, bad).toBe("invalid_api_key");
    }
    expect((await call(ctx.app, "/api/v1/chains/", withApiKey(key))).status).toBe(200);
    revokeKeyById(ctx.db.accounts, keyId, new Date());
    ctx.deps.access!.keys.invalidate(); // the portal does this after revoking on the server's own connection
    const revoked = await call(ctx.app, "/api/v1/chains/", withApiKey(key));
    expect(revoked.status).toBe(401);
    expect(revoked.body.code).toBe("invalid_api_key");
  });

  test("the 401 comes before parameter validation", async () => {
    const ctx = testApp();
    importMilk(ctx);
    const res = await call(ctx.app, "/api/v1/prices/?barcode=abc");
    expect(res.status).toBe(401);
  });
});

describe("key kinds and origins", () => {
  test("a publishable key on a secret endpoint: 403 publishable_key_not_allowed (header or query)", async () => {
    const ctx = testApp();
    const pk = newKey(ctx.deps, "pro", "publishable");
    const inHeader = await call(ctx.app, "/api/v1/chains/", withApiKey(pk.key));
    expect(inHeader.status).toBe(403);
    expect(inHeader.body.code).toBe("publishable_key_not_allowed");
    const inQuery = await call(ctx.app, `/api/v1/chains/?key=${pk.key}`);
    expect(inQuery.body.code).toBe("publishable_key_not_allowed");
  });

  test("a secret key on the widget endpoint: 403 secret_key_not_allowed, not counted", async () => {
    const ctx = testApp();
    importMilk(ctx);
    const sk = newKey(ctx.deps, "pro", "live");
    const res = await call(ctx.app, `/api/v1/widget/data/?barcode=${MILK}`, withApiKey(sk.key));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("secret_key_not_allowed");
    expect(res.headers.get("x-quota-remaining")).toBe("100000");
  });

  test("a widget call from an origin the key does not allow: 403 origin_not_allowed, readable cross-origin", async () => {
    const ctx = testApp();
    importMilk(ctx);
    const pk = newKey(ctx.deps, "free", "publishable", { origins: ["https://shop.example"] });
    for (const origin of ["https://evil.example", "http://shop.example", "https://shop.example:8443", "null"]) {
      const res = await call(ctx.app, `/api/v1/widget/data/?barcode=${MILK}&key=${pk.key}`, { headers: { origin } });
      expect(res.status, origin).toBe(403);
      expect(res.body.code, origin).toBe("origin_not_allowed");
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
    }
  });

  test("missing and unknown publishable keys on the widget endpoint are 401, readable cross-origin", async () => {
    const ctx = testApp();
    importMilk(ctx);
    const missing = await call(ctx.app, `/api/v1/widget/data/?barcode=${MILK}`, { headers: { origin: "https://a.example" } });
    expect(missing.body.code).toBe("missing_api_key");
    expect(missing.headers.get("access-control-allow-origin")).toBe("*");
    const unknown = await call(ctx.app, `/api/v1/widget/data/?barcode=${MILK}&key=pk_live_${"x".repeat(32)}`);
    expect(unknown.body.code).toBe("invalid_api_key");
    expect(unknown.headers.get("x-ratelimit-limit")).toBe("120");
  });
});

describe("plan gate", () => {
  test("403 plan_upgrade_required naming the plan; not counted", async () => {
    const ctx = testApp();
    importMilk(ctx);
    const free = newKey(ctx.deps, "free", "live");
    const history = await call(ctx.app, `/api/v1/prices/${MILK}/history/`, withApiKey(free.key));
    expect(history.status).toBe(403);
    expect(history.body.code).toBe("plan_upgrade_required");
    expect(history.body.detail).toContain("Basic plan");
    expect(history.headers.get("x-quota-remaining")).toBe("200");
    expect(history.headers.get("x-ratelimit-limit")).toBe("60");
    const basket = await call(ctx.app, "/api/v1/basket/compare/", { method: "POST", headers: { "x-api-key": free.key, "content-type": "application/json" }, body: "{}" });
    expect(basket.body.code).toBe("plan_upgrade_required");
    expect(basket.body.detail).toContain("Pro plan");
    const basic = newKey(ctx.deps, "basic", "test");
    const promos = await call(ctx.app, "/api/v1/promos/feed/", withApiKey(basic.key));
    expect(promos.body.code).toBe("plan_upgrade_required");
    expect(promos.body.detail).toContain("Pro plan");
    expect((await call(ctx.app, "/api/v1/chains/", withApiKey(free.key))).body.meta.quota_remaining).toBe(199);
  });
});

describe("the spec's plan table, every operation", () => {
  // Method, path and the lowest plan that may call it (spec: Endpoints).
  const OPERATIONS: [string, string, "free" | "basic" | "pro"][] = [
    ["GET", `/api/v1/prices/?barcode=${MILK}`, "free"],
    ["GET", "/api/v1/product-search/?q=milk", "free"],
    ["GET", "/api/v1/chains/", "free"],
    ["GET", `/api/v1/prices/${MILK}/history/?months=6`, "basic"],
    ["GET", "/api/v1/chains/shufersal/catalog/", "basic"],
    ["GET", "/api/v1/promos/feed/", "pro"],
    ["POST", "/api/v1/basket/compare/", "pro"],
  ];
  const RANK = { free: 0, basic: 1, pro: 2 } as const;
  const NAME = { free: "Free", basic: "Basic", pro: "Pro" } as const;
  const init = (key: string, method: string): RequestInit =>
    method === "POST"
      ? { method, headers: { "x-api-key": key, "content-type": "application/json" }, body: JSON.stringify({ items: [{ barcode: MILK, quantity: 1 }] }) }
      : { method, headers: { "x-api-key": key } };

  test("each plan may call its own and lower operations; above it: 403 plan_upgrade_required naming the plan, not counted", async () => {
    const ctx = testApp({ env: { MEHIR_RATE_FREE: "6000", MEHIR_RATE_BASIC: "6000", MEHIR_RATE_PRO: "6000" } });
    importMilk(ctx);
    await ctx.deps.search!.settled(); // the search index of the new data
    for (const plan of ["free", "basic", "pro"] as const) {
      const { key } = newKey(ctx.deps, plan, "live");
      let allowed = 0;
      for (const [method, path, needs] of OPERATIONS) {
        const res = await call(ctx.app, path, init(key, method));
        if (RANK[plan] >= RANK[needs]) {
          allowed++;
          expect(res.body?.code, `${plan} ${method} ${path}`).not.toBe("plan_upgrade_required");
          expect(res.status, `${plan} ${method} ${path}`).toBeLessThan(500);
        } else {
          expect(res.status, `${plan} ${method} ${path}`).toBe(403);
          expect(res.body.code).toBe("plan_upgrade_required");
          expect(res.body.detail).toContain(`${NAME[needs]} plan`);
        }
      }
      // Free: 3 operations; Basic: 5; Pro: all 7. Only the allowed ones were counted.
      expect(allowed).toBe({ free: 3, basic: 5, pro: 7 }[plan]);
      await settle();
      const quota = { free: 200, basic: 10_000, pro: 100_000 }[plan];
      const after = await call(ctx.app, "/api/v1/chains/", init(key, "GET"));
      expect(after.body.meta.quota_remaining, plan).toBe(quota - allowed - 1);
    }
  });

  test("a publishable key on each secret operation: 403 publishable_key_not_allowed; a secret key on the widget endpoint: 403 secret_key_not_allowed", async () => {
    const ctx = testApp();
    importMilk(ctx);
    const pk = newKey(ctx.deps, "pro", "publishable");
    for (const [method, path] of OPERATIONS) {
      const res = await call(ctx.app, path, init(pk.key, method));
      expect(res.status, path).toBe(403);
      expect(res.body.code, path).toBe("publishable_key_not_allowed");
    }
    for (const kind of ["live", "test"] as const) {
      const sk = newKey(ctx.deps, "pro", kind);
      const res = await call(ctx.app, `/api/v1/widget/data/?barcode=${MILK}`, init(sk.key, "GET"));
      expect(res.status, kind).toBe(403);
      expect(res.body.code, kind).toBe("secret_key_not_allowed");
    }
  });
});

describe("rate limits", () => {
  test("token bucket per key: 429 rate_limited with Retry-After in whole seconds, refilled with time, not counted", async () => {
    let clock = 0;
    const ctx = testApp({ env: { MEHIR_RATE_FREE: "6" }, limiterClock: () => clock }); // burst 1, one token per 10 s
    const { key } = newKey(ctx.deps, "free", "live");
    expect((await call(ctx.app, "/api/v1/chains/", withApiKey(key))).status).toBe(200);
    clock += 2500;
    const limited = await call(ctx.app, "/api/v1/chains/", withApiKey(key));
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe("rate_limited");
    expect(limited.headers.get("retry-after")).toBe("8"); // 7.5 s rounded up
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(limited.headers.get("x-ratelimit-limit")).toBe("6");
    expect(limited.headers.get("x-quota-remaining")).toBe("199");
    clock += 7400;
    expect((await call(ctx.app, "/api/v1/chains/", withApiKey(key))).headers.get("retry-after")).toBe("1"); // 0.1 s left → 1
    clock += 100;
    const again = await call(ctx.app, "/api/v1/chains/", withApiKey(key));
    expect(again.status).toBe(200);
    expect(again.body.meta.quota_remaining).toBe(198);
    // Another key has its own bucket.
    expect((await call(ctx.app, "/api/v1/chains/", withApiKey(newKey(ctx.deps, "free", "live").key))).status).toBe(200);
  });

  test("requests without a usable key are limited per client address", async () => {
    let clock = 0;
    const ctx = testApp({ env: { MEHIR_RATE_ANONYMOUS: "4" }, trustProxy: true, limiterClock: () => clock }); // burst 1, 15 s per token
    const from = (address: string) => ({ headers: { "x-forwarded-for": `${address}, 10.0.0.1` } });
    expect((await call(ctx.app, "/api/v1/chains/", from("192.0.2.1"))).status).toBe(401);
    const limited = await call(ctx.app, "/api/v1/chains/", { headers: { "x-forwarded-for": "192.0.2.1", "x-api-key": "sk_live_guess" } });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe("rate_limited");
    expect(limited.headers.get("retry-after")).toBe("15");
    expect((await call(ctx.app, "/api/v1/chains/", from("192.0.2.2"))).status).toBe(401);
  });

  test("the widget endpoint is limited per client address (MEHIR_WIDGET_RATE)", async () => {
    const ctx = testApp({ env: { MEHIR_WIDGET_RATE: "4" }, trustProxy: true, limiterClock: () => 0 }); // burst 1, 15 s per token
    importMilk(ctx);
    const pk = newKey(ctx.deps, "free", "publishable");
    const path = `/api/v1/widget/data/?barcode=${MILK}&key=${pk.key}`;
    expect((await call(ctx.app, path, { headers: { "x-forwarded-for": "198.51.100.1" } })).status).toBe(200);
    const limited = await call(ctx.app, path, { headers: { "x-forwarded-for": "198.51.100.1", origin: "https://x.example" } });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("15");
    expect(limited.headers.get("access-control-allow-origin")).toBe("*");
    expect((await call(ctx.app, path, { headers: { "x-forwarded-for": "198.51.100.2" } })).status).toBe(200);
  });
});

describe("monthly quota", () => {
  test("spent: 429 quota_exceeded with Retry-After to 00:00 UTC on the 1st", async () => {
    const ctx = testApp({ env: { MEHIR_QUOTA_FREE: "2" } });
    const { key } = newKey(ctx.deps, "free", "live");
    expect((await call(ctx.app, "/api/v1/chains/", withApiKey(key))).body.meta.quota_remaining).toBe(1);
    expect((await call(ctx.app, "/api/v1/chains/", withApiKey(key))).body.meta.quota_remaining).toBe(0);
    const over = await call(ctx.app, "/api/v1/chains/", withApiKey(key));
    expect(over.status).toBe(429);
    expect(over.body.code).toBe("quota_exceeded");
    // 2026-11-22T10:00Z → 2026-12-01T00:00Z = 8 days 14 hours.
    expect(over.headers.get("retry-after")).toBe(String(8 * 86400 + 14 * 3600));
    expect(over.headers.get("x-quota-remaining")).toBe("0");
    expect(over.headers.get("x-quota-limit")).toBe("2");
    ctx.clock.now = new Date("2026-11-30T23:59:59.500Z");
    expect((await call(ctx.app, "/api/v1/chains/", withApiKey(key))).headers.get("retry-after")).toBe("1");
  });

  test("sk_test_ keys keep working when the live quota is spent", async () => {
    const ctx = testApp({ env: { MEHIR_QUOTA_FREE: "0" } });
    const live = newKey(ctx.deps, "free", "live");
    expect((await call(ctx.app, "/api/v1/chains/", withApiKey(live.key))).status).toBe(429);
    const testKey = newKey(ctx.deps, "free", "test");
    const res = await call(ctx.app, "/api/v1/chains/", withApiKey(testKey.key));
    expect(res.status).toBe(200);
    expect(res.body.meta.quota_remaining).toBe(0);
  });

  test("server errors (5xx) are refunded; client errors after authentication count", async () => {
    const ctx = testApp();
    const { key } = newKey(ctx.deps, "free", "live");
    const notReady = await call(ctx.app, `/api/v1/prices/?barcode=${MILK}`, withApiKey(key));
    expect(notReady.status).toBe(503);
    await settle();
    expect((await call(ctx.app, "/api/v1/chains/", withApiKey(key))).body.meta.quota_remaining).toBe(199);
    importMilk(ctx);
    expect((await call(ctx.app, "/api/v1/prices/?barcode=abc", withApiKey(key))).status).toBe(400);
    expect((await call(ctx.app, "/api/v1/prices/?barcode=7290000099999", withApiKey(key))).status).toBe(404);
    await settle();
    expect((await call(ctx.app, "/api/v1/chains/", withApiKey(key))).body.meta.quota_remaining).toBe(196);
  });
});
