import { describe, expect, test } from "bun:test";
import { generateKey, hashKey, keyKindOf } from "../../src/accounts/key-format.ts";
import { testApp } from "../helpers/app.ts";
import { newKey } from "../helpers/keys.ts";
import { call, importMilk, MILK, withApiKey } from "../helpers/access.ts";

describe("secret keys stay secret", () => {
  test("a secret key in the query string is refused (403 secret_key_not_allowed), even valid and even with a header key", async () => {
    const ctx = testApp();
    importMilk(ctx);
    const sk = newKey(ctx.deps, "pro", "live");
    for (const path of [`/api/v1/chains/?key=${sk.key}`, `/api/v1/widget/data/?barcode=${MILK}&key=${sk.key}`, `/api/v1/chains/?key=sk_test_whatever`]) {
      const res = await call(ctx.app, path);
      expect(res.status, path).toBe(403);
      expect(res.body.code, path).toBe("secret_key_not_allowed");
    }
    const both = await call(ctx.app, `/api/v1/chains/?key=${sk.key}`, withApiKey(sk.key));
    expect(both.body.code).toBe("secret_key_not_allowed");
    // None of these counted.
    expect((await call(ctx.app, "/api/v1/chains/", withApiKey(sk.key))).body.meta.quota_remaining).toBe(99_999);
  });

  test("a whole secret key in any query parameter (or as a bare parameter, or URL-encoded) is refused, not only in `key`", async () => {
    const ctx = testApp({ limiterClock: () => 0 });
    importMilk(ctx);
    const sk = newKey(ctx.deps, "pro", "live");
    const test = newKey(ctx.deps, "pro", "test");
    const encoded = sk.key.replaceAll("_", "%5F");
    for (const path of [
      `/api/v1/chains/?api_key=${sk.key}`,
      `/api/v1/chains/?x-api-key=${test.key}`,
      `/api/v1/product-search/?q=${encodeURIComponent("find " + sk.key)}`,
      `/api/v1/chains/?${sk.key}`,
      `/api/v1/chains/?token=${encoded}`,
      `/api/v1/widget/data/?barcode=${MILK}&k=${sk.key}`,
    ]) {
      const res = await call(ctx.app, path, withApiKey(sk.key));
      expect(res.status, path).toBe(403);
      expect(res.body.code, path).toBe("secret_key_not_allowed");
      expect(JSON.stringify(res.body), path).not.toContain(sk.key.slice(8));
    }
    // Text that only resembles a key is an ordinary query; none of the refusals above counted.
    const lookalike = await call(ctx.app, `/api/v1/prices/?barcode=${MILK}&note=sk_live_milk`, withApiKey(sk.key));
    expect(lookalike.status).toBe(200);
    expect(lookalike.body.meta.quota_remaining).toBe(100_000 - 1);
  });

  test("keys are stored only as SHA-256 hashes, with prefix and last 4 for display", () => {
    const ctx = testApp();
    const { key, keyId } = newKey(ctx.deps, "free", "live");
    const row = ctx.db.accounts.query("SELECT * FROM api_keys WHERE id = ?").get(keyId) as Record<string, unknown>;
    expect(row.hash).toBe(hashKey(key));
    expect(row.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.prefix).toBe(key.slice(0, 12));
    expect(row.last4).toBe(key.slice(-4));
    const dump = JSON.stringify(ctx.db.accounts.query("SELECT * FROM api_keys").all());
    expect(dump).not.toContain(key.slice(8));
  });

  test("error answers never echo the key, and carry no stack or SQL", async () => {
    const ctx = testApp();
    const { key } = newKey(ctx.deps, "free", "publishable");
    for (const res of [await call(ctx.app, "/api/v1/chains/", withApiKey(key)), await call(ctx.app, `/api/v1/chains/?key=sk_live_${"Q".repeat(32)}`)]) {
      const text = JSON.stringify(res.body);
      expect(text).not.toContain(key);
      expect(text).not.toContain("Q".repeat(32));
      expect(text).not.toMatch(/at .*\.ts|SELECT|sqlite/i);
    }
  });

  test("secret endpoints send no CORS headers, on success or error", async () => {
    const ctx = testApp();
    const { key } = newKey(ctx.deps, "free", "live");
    for (const init of [withApiKey(key, { origin: "https://evil.example" }), { headers: { origin: "https://evil.example" } }]) {
      const res = await call(ctx.app, "/api/v1/chains/", init);
      for (const [name] of res.headers) expect(name.startsWith("access-control-")).toBe(false);
    }
  });

  test("X-Forwarded-For is ignored unless trustProxy is on (one cannot dodge the address limit)", async () => {
    const ctx = testApp({ env: { MEHIR_RATE_ANONYMOUS: "1" }, limiterClock: () => 0 });
    expect((await call(ctx.app, "/api/v1/chains/", { headers: { "x-forwarded-for": "203.0.113.1" } })).status).toBe(401);
    expect((await call(ctx.app, "/api/v1/chains/", { headers: { "x-forwarded-for": "203.0.113.2" } })).status).toBe(429);
  });

  test("key guessing is throttled per address before any key is looked up", async () => {
    const ctx = testApp({ env: { MEHIR_RATE_ANONYMOUS: "12" }, limiterClock: () => 0 }); // burst 3
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await call(ctx.app, "/api/v1/chains/", withApiKey(generateKey("live")))).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429]);
  });

  test("a key of one account does not spend another account's quota", async () => {
    const ctx = testApp({ env: { MEHIR_QUOTA_FREE: "1" } });
    const a = newKey(ctx.deps, "free", "live");
    const b = newKey(ctx.deps, "free", "live");
    expect((await call(ctx.app, "/api/v1/chains/", withApiKey(a.key))).status).toBe(200);
    expect((await call(ctx.app, "/api/v1/chains/", withApiKey(a.key))).status).toBe(429);
    expect((await call(ctx.app, "/api/v1/chains/", withApiKey(b.key))).status).toBe(200);
  });
});

describe("key format", () => {
  test("prefix + 32 base62 characters from a CSPRNG, never repeating", () => {
    const seen = new Set<string>();
    const counts = new Map<string, number>();
    for (let i = 0; i < 2000; i++) {
      const key = generateKey("live");
      expect(key).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
      seen.add(key);
      for (const c of key.slice(8)) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    expect(seen.size).toBe(2000);
    // 64,000 characters over 62 symbols: ~1,032 each; every symbol appears, none wildly over-represented.
    expect(counts.size).toBe(62);
    for (const n of counts.values()) expect(n).toBeGreaterThan(800), expect(n).toBeLessThan(1300);
    expect(generateKey("test")).toMatch(/^sk_test_/);
    expect(generateKey("publishable")).toMatch(/^pk_live_/);
    expect(keyKindOf(generateKey("publishable"))).toBe("publishable");
    expect(keyKindOf("pk_test_" + "a".repeat(32))).toBeNull();
  });
});
