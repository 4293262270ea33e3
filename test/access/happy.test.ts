import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDataDir } from "../../src/db/open.ts";
import { testApp } from "../helpers/app.ts";
import { newKey } from "../helpers/keys.ts";
import { bumpVersion, call, importMilk, MILK, settle, withApiKey } from "../helpers/access.ts";
import { runKeys } from "../../src/cli/keys.ts";
import { runAccounts } from "../../src/cli/accounts.ts";

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "mehir-access-"));
  temps.push(dir);
  return dir;
}

/** Runs a CLI function with its output captured (the last line of `keys create` is the key). */
async function cli(run: (args: string[]) => Promise<number>, args: string[]): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const log = console.log;
  console.log = (...parts: unknown[]) => void lines.push(parts.join(" "));
  try {
    return { code: await run(args), lines };
  } finally {
    console.log = log;
  }
}

describe("secret keys on the API", () => {
  test("a live key: 200, meta.quota_remaining and X-Quota-* fall by one per call, rate-limit headers", async () => {
    const ctx = testApp();
    const { key } = newKey(ctx.deps, "free", "live");
    const first = await call(ctx.app, "/api/v1/chains/", withApiKey(key));
    expect(first.status).toBe(200);
    expect(first.body.meta.quota_remaining).toBe(199);
    expect(first.headers.get("x-quota-limit")).toBe("200");
    expect(first.headers.get("x-quota-remaining")).toBe("199");
    expect(first.headers.get("x-ratelimit-limit")).toBe("60");
    expect(first.headers.get("x-ratelimit-remaining")).toBe("14"); // burst 15 (a quarter of 60), one taken
    expect(first.headers.get("x-ratelimit-reset")).toBe("1"); // one token back in a second at 60/min
    const second = await call(ctx.app, "/api/v1/chains", withApiKey(key));
    expect(second.body.meta.quota_remaining).toBe(198);
    expect(second.headers.get("x-quota-remaining")).toBe("198");
    expect(second.headers.get("x-ratelimit-remaining")).toBe("13");
    expect(second.headers.get("x-ratelimit-reset")).toBe("2");
  });

  test("plan figures come from the settings", async () => {
    const ctx = testApp({ env: { MEHIR_QUOTA_BASIC: "500", MEHIR_RATE_BASIC: "120" } });
    const { key } = newKey(ctx.deps, "basic", "live");
    const res = await call(ctx.app, "/api/v1/chains/", withApiKey(key));
    expect(res.headers.get("x-quota-limit")).toBe("500");
    expect(res.body.meta.quota_remaining).toBe(499);
    expect(res.headers.get("x-ratelimit-limit")).toBe("120");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("29"); // burst 30, one taken
  });

  test("GET answers carry a weak ETag, Last-Modified (data update time) and private caching", async () => {
    const ctx = testApp();
    importMilk(ctx);
    const { key } = newKey(ctx.deps, "free", "live");
    const res = await call(ctx.app, `/api/v1/prices/?barcode=${MILK}`, withApiKey(key));
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toMatch(/^W\/"1-[A-Za-z0-9_-]{16}"$/);
    expect(res.headers.get("last-modified")).toBe("Sun, 22 Nov 2026 03:30:00 GMT");
    expect(res.headers.get("cache-control")).toBe("private, max-age=300");
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("plans nest: a Pro key may call Free, Basic and Pro operations", async () => {
    const ctx = testApp();
    importMilk(ctx);
    const { key } = newKey(ctx.deps, "pro", "live");
    expect((await call(ctx.app, `/api/v1/prices/?barcode=${MILK}`, withApiKey(key))).status).toBe(200);
    expect((await call(ctx.app, `/api/v1/prices/${MILK}/history/`, withApiKey(key))).status).toBe(200);
    expect((await call(ctx.app, "/api/v1/promos/feed/", withApiKey(key))).status).toBe(200);
    const basket = await call(ctx.app, "/api/v1/basket/compare/", {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ items: [{ barcode: MILK, quantity: 2 }] }),
    });
    expect(basket.status).toBe(200);
    expect(basket.body.meta.quota_remaining).toBe(99_996);
  });

  test("sk_test_ calls are never counted and show the account's live figure", async () => {
    const ctx = testApp();
    const live = newKey(ctx.deps, "free", "live");
    const testKey = newKey(ctx.deps, undefined, "test", { accountId: live.accountId });
    await call(ctx.app, "/api/v1/chains/", withApiKey(live.key));
    await call(ctx.app, "/api/v1/chains/", withApiKey(live.key));
    for (let i = 0; i < 3; i++) {
      const res = await call(ctx.app, "/api/v1/chains/", withApiKey(testKey.key));
      expect(res.status).toBe(200);
      expect(res.body.meta.quota_remaining).toBe(198);
      expect(res.headers.get("x-quota-remaining")).toBe("198");
    }
    expect((await call(ctx.app, "/api/v1/chains/", withApiKey(live.key))).body.meta.quota_remaining).toBe(197);
  });

  test("HEAD is answered like GET: it needs a key and counts", async () => {
    const ctx = testApp();
    const { key } = newKey(ctx.deps, "free", "live");
    expect((await call(ctx.app, "/api/v1/chains/", { method: "HEAD" })).status).toBe(401);
    const head = await call(ctx.app, "/api/v1/chains/", { method: "HEAD", headers: { "x-api-key": key } });
    expect(head.status).toBe(200);
    expect(head.headers.get("x-quota-remaining")).toBe("199");
  });
});

describe("conditional GET", () => {
  test("a matching If-None-Match gets 304 with no body, not counted; a new data version changes the ETag", async () => {
    const ctx = testApp();
    importMilk(ctx);
    const { key } = newKey(ctx.deps, "free", "live");
    const path = `/api/v1/prices/?barcode=${MILK}`;
    const first = await call(ctx.app, path, withApiKey(key));
    const etag = first.headers.get("etag")!;
    expect(first.body.meta.quota_remaining).toBe(199);

    const again = await call(ctx.app, path, withApiKey(key, { "if-none-match": etag }));
    expect(again.status).toBe(304);
    expect(again.body).toBeNull();
    expect(again.headers.get("etag")).toBe(etag);
    expect(again.headers.get("x-quota-remaining")).toBe("199");
    expect(again.headers.get("x-ratelimit-limit")).toBe("60");
    expect(again.headers.get("cache-control")).toBe("private, max-age=300");
    expect(again.headers.get("x-request-id")).toMatch(/^req_/);
    // Same request in another spelling: trailing slash, parameter order, a strong form of the tag.
    const spelled = await call(ctx.app, `/api/v1/prices?granularity=chain&barcode=${MILK}`, withApiKey(key, { "if-none-match": `"x", ${etag.slice(2)}` }));
    expect(spelled.status).toBe(200); // granularity=chain is a different canonical request
    const reordered = await call(ctx.app, `/api/v1/prices?barcode=${MILK}`, withApiKey(key, { "if-none-match": etag.slice(2) }));
    expect(reordered.status).toBe(304);

    const next = await call(ctx.app, path, withApiKey(key));
    expect(next.body.meta.quota_remaining).toBe(197); // 199, then the 200 answer above (198), then this one

    bumpVersion(ctx); // data version 2
    const stale = await call(ctx.app, path, withApiKey(key, { "if-none-match": etag }));
    expect(stale.status).toBe(200);
    expect(stale.headers.get("etag")).toMatch(/^W\/"2-/);
  });
});

describe("publishable keys on the widget endpoint", () => {
  test("in the key query parameter or X-API-Key; CORS to an allowed origin; no quota fields", async () => {
    const ctx = testApp();
    importMilk(ctx);
    const pk = newKey(ctx.deps, "free", "publishable", { origins: ["https://shop.example"] });
    const viaQuery = await call(ctx.app, `/api/v1/widget/data/?barcode=${MILK}&key=${pk.key}`, { headers: { origin: "https://shop.example" } });
    expect(viaQuery.status).toBe(200);
    expect(viaQuery.headers.get("access-control-allow-origin")).toBe("https://shop.example");
    expect(viaQuery.headers.get("x-ratelimit-limit")).toBe("120");
    expect(viaQuery.headers.get("x-quota-limit")).toBeNull();
    expect(viaQuery.body.meta.quota_remaining).toBeUndefined();
    expect(viaQuery.headers.get("cache-control")).toBe("public, max-age=300, stale-while-revalidate=3600");
    expect(viaQuery.headers.get("etag")).toMatch(/^W\/"1-/);
    const viaHeader = await call(ctx.app, `/api/v1/widget/data/?barcode=${MILK}`, withApiKey(pk.key, { origin: "https://shop.example" }));
    expect(viaHeader.status).toBe(200);
    // The ETag ignores the key parameter: one cache entry per product however the key is sent.
    expect(viaHeader.headers.get("etag")).toBe(viaQuery.headers.get("etag"));
    // No Origin header: a server-side call, allowed.
    expect((await call(ctx.app, `/api/v1/widget/data/?barcode=${MILK}&key=${pk.key}`)).status).toBe(200);
  });

  test("an empty origin list allows any origin; a 304 keeps the widget's CORS and caching", async () => {
    const ctx = testApp();
    importMilk(ctx);
    const pk = newKey(ctx.deps, "free", "publishable");
    const path = `/api/v1/widget/data/?barcode=${MILK}&key=${pk.key}`;
    const res = await call(ctx.app, path, { headers: { origin: "https://anyone.example" } });
    expect(res.status).toBe(200);
    const cached = await call(ctx.app, path, { headers: { origin: "https://anyone.example", "if-none-match": res.headers.get("etag")! } });
    expect(cached.status).toBe(304);
    expect(cached.headers.get("access-control-allow-origin")).toBe("https://anyone.example");
    expect(cached.headers.get("cache-control")).toBe("public, max-age=300, stale-while-revalidate=3600");
  });

  test("each publishable key has its own monthly widget quota", async () => {
    const ctx = testApp({ env: { MEHIR_WIDGET_QUOTA: "2" } });
    importMilk(ctx);
    const pk = newKey(ctx.deps, "free", "publishable");
    const other = newKey(ctx.deps, undefined, "publishable", { accountId: pk.accountId });
    const path = (key: string) => `/api/v1/widget/data/?barcode=${MILK}&key=${key}`;
    expect((await call(ctx.app, path(pk.key))).status).toBe(200);
    expect((await call(ctx.app, path(pk.key))).status).toBe(200);
    const over = await call(ctx.app, path(pk.key));
    expect(over.status).toBe(429);
    expect(over.body.code).toBe("quota_exceeded");
    expect((await call(ctx.app, path(other.key))).status).toBe(200);
  });
});

describe("public paths", () => {
  test("probes, docs, portal, widget files, 404 and 405 need no key, are never refused, and carry the address's X-RateLimit-*", async () => {
    let clock = 0;
    const ctx = testApp({ env: { MEHIR_RATE_ANONYMOUS: "1" }, limiterClock: () => clock }); // burst 1, one token a minute
    const paths = ["/healthz", "/docs/errors", "/portal/signin", "/portal/", "/widget/v1/loader.js", "/api/v1/nope", "/nope"];
    for (const path of paths) {
      for (let i = 0; i < 2; i++) {
        const res = await call(ctx.app, path);
        expect(res.status, path).not.toBe(429);
        expect(res.headers.get("x-ratelimit-limit"), path).toBe("1");
        expect(res.headers.get("x-ratelimit-remaining"), path).toBe("1"); // peeked, nothing taken
        expect(res.headers.get("x-ratelimit-reset"), path).toBe("0");
        expect(res.headers.get("x-quota-limit"), path).toBeNull();
      }
    }
    expect((await call(ctx.app, "/nope")).status).toBe(404);
    const wrongMethod = await call(ctx.app, "/api/v1/prices/", { method: "DELETE" });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("x-ratelimit-remaining")).toBe("1");
    // A call without a key takes the address's one token; public paths then show the empty bucket.
    expect((await call(ctx.app, "/api/v1/chains/")).status).toBe(401);
    clock += 15_000;
    const after = await call(ctx.app, "/healthz");
    expect(after.status).toBe(200);
    expect(after.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(after.headers.get("x-ratelimit-reset")).toBe("45"); // a quarter of the token back after 15 s of 60
  });
});

describe("quota under concurrency and across restarts", () => {
  test("1,000 parallel requests against 200 remaining: exactly 200 succeed", async () => {
    const ctx = testApp({ env: { MEHIR_RATE_FREE: "100000" } });
    const { key } = newKey(ctx.deps, "free", "live");
    const answers = await Promise.all(Array.from({ length: 1000 }, () => call(ctx.app, "/api/v1/chains/", withApiKey(key))));
    const ok = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    expect(ok).toHaveLength(200);
    expect(refused).toHaveLength(800);
    expect(refused.every((a) => a.body.code === "quota_exceeded")).toBe(true);
    expect(new Set(ok.map((a) => a.body.meta.quota_remaining)).size).toBe(200); // 199 … 0, each once
    expect(Math.min(...ok.map((a) => a.body.meta.quota_remaining))).toBe(0);
    await settle();
    expect(ctx.deps.access!.quota.usedThisMonth("account:1", ctx.clock.now)).toBe(200);
    ctx.deps.access!.flush();
    expect(ctx.db.accounts.query("SELECT day, count FROM usage_daily WHERE subject = 'account:1'").all()).toEqual([{ day: "2026-11-22", count: 200 }]);
  });

  test("the same over real sockets: 1,000 parallel fetches to a listening app, 150 of 200 left: exactly 150 succeed", async () => {
    const ctx = testApp({ env: { MEHIR_RATE_FREE: "100000" } });
    const { key, accountId } = newKey(ctx.deps, "free", "live");
    for (let i = 0; i < 50; i++) await call(ctx.app, "/api/v1/chains/", withApiKey(key));
    ctx.app.listen({ port: 0, hostname: "127.0.0.1" });
    const url = `http://127.0.0.1:${ctx.app.server!.port}/api/v1/chains/`;
    const answers = await Promise.all(
      Array.from({ length: 1000 }, () => fetch(url, { headers: { "x-api-key": key } }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }))),
    );
    const ok = answers.filter((a) => a.status === 200);
    expect(ok).toHaveLength(150);
    expect(answers.filter((a) => a.status === 429 && a.body.code === "quota_exceeded")).toHaveLength(850);
    expect(ok.map((a) => a.body.meta.quota_remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 150 }, (_, i) => i));
    await ctx.app.stop(); // flushes
    expect(ctx.db.accounts.query("SELECT count FROM usage_daily WHERE subject = ?").get(`account:${accountId}`)).toEqual({ count: 200 });
  });

  test("counts reach usage_daily by themselves (a timer, about a second later), with no explicit flush", async () => {
    const ctx = testApp();
    const { key, accountId } = newKey(ctx.deps, "free", "live");
    await call(ctx.app, "/api/v1/chains/", withApiKey(key));
    await call(ctx.app, "/api/v1/chains/", withApiKey(key));
    const row = () => ctx.db.accounts.query("SELECT day, count FROM usage_daily WHERE subject = ?").get(`account:${accountId}`);
    expect(row()).toBeNull(); // not a write per request
    // The flush timer's write, however late a busy machine runs it (the test's timeout bounds the wait).
    while (row() === null) await Bun.sleep(20);
    expect(row()).toEqual({ day: "2026-11-22", count: 2 });
  });

  test("restart: counts flushed at stop are loaded again", async () => {
    const dir = tempDir();
    const first = testApp({ db: openDataDir(dir) });
    const { key } = newKey(first.deps, "free", "live");
    for (let i = 0; i < 3; i++) expect((await call(first.app, "/api/v1/chains/", withApiKey(key))).status).toBe(200);
    first.deps.access!.flush();
    first.db.accounts.close();
    first.db.prices.close();

    const second = testApp({ db: openDataDir(dir) });
    const res = await call(second.app, "/api/v1/chains/", withApiKey(key));
    expect(res.status).toBe(200);
    expect(res.body.meta.quota_remaining).toBe(196);
    second.db.accounts.close();
    second.db.prices.close();
  });

  test("stopping a listening app flushes the counters (serve's shutdown path)", async () => {
    const dir = tempDir();
    const ctx = testApp({ db: openDataDir(dir) });
    const { key, accountId } = newKey(ctx.deps, "free", "live");
    ctx.app.listen({ port: 0, hostname: "127.0.0.1" });
    const url = `http://127.0.0.1:${ctx.app.server!.port}`;
    const res = await fetch(`${url}/api/v1/chains/`, { headers: { "x-api-key": key } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-quota-remaining")).toBe("199");
    await settle();
    await ctx.app.stop();
    const row = ctx.db.accounts.query("SELECT count FROM usage_daily WHERE subject = ?").get(`account:${accountId}`);
    expect(row).toEqual({ count: 1 });
    ctx.db.accounts.close();
    ctx.db.prices.close();
  });

  test("a new month starts from the full quota", async () => {
    const ctx = testApp({ env: { MEHIR_QUOTA_FREE: "1" } });
    const { key } = newKey(ctx.deps, "free", "live");
    expect((await call(ctx.app, "/api/v1/chains/", withApiKey(key))).status).toBe(200);
    expect((await call(ctx.app, "/api/v1/chains/", withApiKey(key))).status).toBe(429);
    ctx.clock.now = new Date("2026-12-01T00:00:00Z");
    const res = await call(ctx.app, "/api/v1/chains/", withApiKey(key));
    expect(res.status).toBe(200);
    expect(res.body.meta.quota_remaining).toBe(0);
  });
});

describe("operator CLI while the server runs (another connection)", () => {
  test("a key created, a plan changed and a key revoked by the CLI take effect within a second", async () => {
    const dir = tempDir();
    // The key cache's clock (it looks for changes at most every 250 ms of it): moved by hand, so
    // "within a second" is the server's rule, not the machine's speed.
    let clockMs = 0;
    const ctx = testApp({ db: openDataDir(dir), limiterClock: () => clockMs });
    expect((await cli(runAccounts, ["create", "--email", "ops@example.com", "--data-dir", dir])).code).toBe(0);
    const created = await cli(runKeys, ["create", "--email", "ops@example.com", "--kind", "live", "--data-dir", dir]);
    expect(created.code).toBe(0);
    const key = created.lines.at(-1)!;
    expect(key).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);

    const ok = await call(ctx.app, "/api/v1/chains/", withApiKey(key));
    expect(ok.status).toBe(200);
    expect((await call(ctx.app, "/api/v1/chains/x/catalog/", withApiKey(key))).body.code).toBe("plan_upgrade_required");

    expect((await cli(runAccounts, ["set-plan", "ops@example.com", "basic", "--data-dir", dir])).code).toBe(0);
    clockMs += 1000;
    expect((await call(ctx.app, "/api/v1/chains/x/catalog/", withApiKey(key))).body.code).not.toBe("plan_upgrade_required");

    expect((await cli(runKeys, ["revoke", key.slice(0, 12), "--data-dir", dir])).code).toBe(0);
    clockMs += 1000;
    expect((await call(ctx.app, "/api/v1/chains/", withApiKey(key))).status).toBe(401);
    ctx.db.accounts.close();
    ctx.db.prices.close();
  });
});
