import { describe, expect, test } from "bun:test";
import { openMemory } from "../../src/db/open.ts";
import { TokenBuckets, burstOf } from "../../src/access/token-bucket.ts";
import { SqliteQuotaLedger } from "../../src/access/sqlite-quota-ledger.ts";
import { etagFor, etagMatches, httpDate } from "../../src/serving/etag.ts";
import { originAllowed, parseOrigin, parseOriginList } from "../../src/accounts/origins.ts";
import { daysOfMonth, secondsToNextMonth } from "../../src/accounts/utc-month.ts";
import { RouteTable } from "../../src/http/routes.ts";
import { OPERATIONS, ROUTE_DECLARATIONS } from "../../src/modules/index.ts";
import { createAccount } from "../../src/accounts/accounts.ts";
import { createKey, KeyError, resolveKey } from "../../src/accounts/keys.ts";

describe("token bucket", () => {
  test("burst is a quarter of the minute figure, at least 1; refills evenly", () => {
    expect(burstOf(60)).toBe(15);
    expect(burstOf(1200)).toBe(300);
    expect(burstOf(5)).toBe(1);
    let now = 0;
    const limiter = new TokenBuckets(() => now);
    const taken = Array.from({ length: 16 }, () => limiter.take("k", 60));
    expect(taken.map((v) => v.allowed)).toEqual([...Array(15).fill(true), false]);
    expect(taken[14]!.remaining).toBe(0);
    expect(taken[14]!.reset).toBe(15);
    expect(taken[15]!.retryAfter).toBe(1);
    now += 3000;
    expect(limiter.peek("k", 60)).toMatchObject({ remaining: 3, reset: 12 });
    now += 60_000;
    expect(limiter.peek("k", 60)).toMatchObject({ remaining: 15, reset: 0 });
  });

  test("full buckets are dropped after a while (memory stays bounded)", () => {
    let now = 0;
    const limiter = new TokenBuckets(() => now);
    for (let i = 0; i < 100; i++) limiter.take(`ip:${i}`, 60);
    expect(limiter.size).toBe(100);
    now += 61_000;
    limiter.take("other", 60);
    expect(limiter.size).toBe(1);
  });
});

describe("quota ledger", () => {
  test("reserve up to the limit, refund, flush in one batch, load again", () => {
    const db = openMemory().accounts;
    const ledger = new SqliteQuotaLedger(db, { flushMs: 60_000 });
    const now = new Date("2026-11-22T10:00:00Z");
    const a = ledger.tryReserve("account:1", 3, now);
    const b = ledger.tryReserve("account:1", 3, now);
    const c = ledger.tryReserve("account:1", 3, now);
    expect([a.ok, b.ok, c.ok]).toEqual([true, true, true]);
    expect(ledger.tryReserve("account:1", 3, now)).toEqual({ ok: false, remaining: 0 });
    if (c.ok) ledger.refund(c.reservation);
    expect(ledger.usedThisMonth("account:1", now)).toBe(2);
    expect(db.query("SELECT count(*) AS n FROM usage_daily").get()).toEqual({ n: 0 });
    expect(ledger.flush()).toBe(1);
    expect(db.query("SELECT subject, day, count FROM usage_daily").all()).toEqual([{ subject: "account:1", day: "2026-11-22", count: 2 }]);
    // A refund after the flush is written as a negative delta.
    if (b.ok) ledger.refund(b.reservation);
    ledger.flush();
    expect(db.query("SELECT count FROM usage_daily").get()).toEqual({ count: 1 });
    const reloaded = new SqliteQuotaLedger(db);
    expect(reloaded.usedThisMonth("account:1", now)).toBe(1);
    expect(reloaded.usedThisMonth("account:1", new Date("2026-12-01T00:00:00Z"))).toBe(0);
    expect(reloaded.dailyUsage("account:1", now).find((d) => d.day === "2026-11-22")).toEqual({ day: "2026-11-22", count: 1 });
    expect(reloaded.dailyUsage("account:1", now)).toHaveLength(30);
  });

  test("a flush against a closed database is abandoned once, not retried every interval", async () => {
    const db = openMemory().accounts;
    const warnings: string[] = [];
    const { promise: firstWarning, resolve } = Promise.withResolvers<void>();
    // Its own warn function: other tests' apps in this process may log through the shared logger.
    const warn = (msg: string) => {
      warnings.push(msg);
      resolve();
    };
    const ledger = new SqliteQuotaLedger(db, { flushMs: 5, warn });
    ledger.tryReserve("account:1", 3, new Date("2026-11-22T10:00:00Z"));
    db.close();
    // The scheduled flush fails; a retry would come 5 ms later. After the first failure, a window
    // of a dozen intervals in which none may come.
    await firstWarning;
    await Bun.sleep(60);
    expect(warnings).toEqual(["usage flush abandoned: the accounts database is closed"]);
  });
});

describe("ETag", () => {
  const req = (url: string, method = "GET") => new Request(`http://localhost${url}`, { method });
  test("version + canonical request: slash, parameter order, HEAD and the key parameter do not matter", () => {
    const tag = etagFor(7, req("/api/v1/prices/?barcode=1&granularity=store"));
    expect(tag).toMatch(/^W\/"7-[A-Za-z0-9_-]{16}"$/);
    expect(etagFor(7, req("/api/v1/prices?granularity=store&barcode=1"))).toBe(tag);
    expect(etagFor(7, req("/api/v1/prices?granularity=store&barcode=1&key=pk_live_x"))).toBe(tag);
    expect(etagFor(7, req("/api/v1/prices?granularity=store&barcode=1", "HEAD"))).toBe(tag);
    expect(etagFor(8, req("/api/v1/prices?granularity=store&barcode=1"))).not.toBe(tag);
    expect(etagFor(7, req("/api/v1/prices?granularity=store&barcode=2"))).not.toBe(tag);
  });
  test("If-None-Match lists and weak comparison", () => {
    expect(etagMatches('"a", W/"7-x"', 'W/"7-x"')).toBe(true);
    expect(etagMatches('"7-x"', 'W/"7-x"')).toBe(true);
    expect(etagMatches('W/"7-y"', 'W/"7-x"')).toBe(false);
    expect(etagMatches(null, 'W/"7-x"')).toBe(false);
    expect(httpDate("2026-11-22T05:30:00+02:00")).toBe("Sun, 22 Nov 2026 03:30:00 GMT");
    expect(httpDate(null)).toBeNull();
  });
});

describe("origins", () => {
  test("only plain http(s) origins; canonical form", () => {
    expect(parseOrigin("https://Shop.Example:443/")).toBe("https://shop.example");
    expect(parseOrigin("http://localhost:3000")).toBe("http://localhost:3000");
    for (const bad of ["shop.example", "ftp://x.example", "https://x.example/path", "https://x.example?a=1", "https://u:p@x.example", "javascript:alert(1)", ""]) {
      expect(parseOrigin(bad), bad).toBeNull();
    }
    expect(parseOriginList(["https://a.example\nhttps://b.example, https://a.example"])).toEqual({ ok: true, origins: ["https://a.example", "https://b.example"] });
    expect(parseOriginList(["https://a.example/x"])).toEqual({ ok: false, invalid: "https://a.example/x" });
    expect(originAllowed([], "https://any.example")).toBe(true);
    expect(originAllowed(["https://a.example"], null)).toBe(true);
    expect(originAllowed(["https://a.example"], "https://b.example")).toBe(false);
  });
});

describe("months and routes", () => {
  test("seconds to the next 1st, days of a month", () => {
    expect(secondsToNextMonth(new Date("2026-12-31T23:59:00Z"))).toBe(60);
    expect(secondsToNextMonth(new Date("2027-01-01T00:00:00Z"))).toBe(31 * 86400);
    expect(daysOfMonth(new Date("2028-02-10T00:00:00Z"))).toHaveLength(29);
  });
  test("paths map to the audience their route's operation declares, HEAD like GET", () => {
    const routes = new RouteTable(() => [...OPERATIONS.map((op) => ({ method: op.method.toUpperCase(), path: op.path })), { method: "OPTIONS", path: "/api/v1/widget/data" }, { method: "DELETE", path: "/mcp" }, { method: "GET", path: "/api/v1/added" }], ROUTE_DECLARATIONS);
    const matchRoute = (method: string, path: string) => {
      const { route, audience } = routes.audience(method, path);
      return { route: route?.path ?? null, audience };
    };
    expect(matchRoute("GET", "/api/v1/prices/")).toEqual({ route: "/api/v1/prices", audience: "free" });
    expect(matchRoute("HEAD", "/api/v1/prices/729/history")).toEqual({ route: "/api/v1/prices/:barcode/history", audience: "basic" });
    expect(matchRoute("POST", "/api/v1/basket/compare/").audience).toBe("pro");
    expect(matchRoute("GET", "/api/v1/widget/data").audience).toBe("publishable");
    expect(matchRoute("OPTIONS", "/api/v1/widget/data").audience).toBe("public");
    // Under /api/ and /mcp nothing is public without a declaration: a route added without one, or no route.
    expect(matchRoute("GET", "/api/v1/added")).toEqual({ route: "/api/v1/added", audience: "undeclared" });
    expect(matchRoute("GET", "/api/v1/nope").audience).toBe("undeclared");
    expect(matchRoute("PUT", "/mcp").audience).toBe("undeclared");
    expect(matchRoute("GET", "/portal/nope").audience).toBe("public");
    expect(matchRoute("GET", "/api/v1/prices/1/2/history")).toEqual({ route: null, audience: "undeclared" }); // two segments: no route
    expect(matchRoute("DELETE", "/mcp").audience).toBe("mcp");
    expect(routes.match("POST", "/api/v1/prices/batch/")?.operation?.itemsPerCall).toBe(10);
    expect(routes.match("GET", "/api/v1/alerts/a1")?.operation).toMatchObject({ liveOnly: true, accountData: true });
  });
});

describe("key resolution for revoke", () => {
  test("whole key, prefix or masked form; ambiguity is an error", () => {
    const db = openMemory().accounts;
    const account = createAccount(db, { email: "x@example.com" }, new Date());
    const { key, record } = createKey(db, { accountId: account.id, kind: "live" }, new Date());
    expect(resolveKey(db, key).id).toBe(record.id);
    expect(resolveKey(db, key.slice(0, 12)).id).toBe(record.id);
    expect(resolveKey(db, `${key.slice(0, 12)}…${key.slice(-4)}`).id).toBe(record.id);
    expect(resolveKey(db, `${key.slice(0, 12)}...${key.slice(-4)}`).id).toBe(record.id);
    expect(() => resolveKey(db, "sk_live_")).toThrow(KeyError);
    db.run("UPDATE api_keys SET prefix = ? WHERE id = ?", [key.slice(0, 12), createKey(db, { accountId: account.id, kind: "live" }, new Date()).record.id]);
    expect(() => resolveKey(db, key.slice(0, 12))).toThrow(/2 active keys/);
    expect(resolveKey(db, key).id).toBe(record.id);
  });
});

describe("UTC days and months of the quota", () => {
  test("day and month strings at the edges, in any order of calls", async () => {
    const { dayOf, monthOf } = await import("../../src/accounts/utc-month.ts");
    const at = (iso: string) => new Date(iso);
    expect(dayOf(at("2026-11-30T23:59:59.999Z"))).toBe("2026-11-30");
    expect(monthOf(at("2026-11-30T23:59:59.999Z"))).toBe("2026-11");
    expect(dayOf(at("2026-12-01T00:00:00.000Z"))).toBe("2026-12-01");
    expect(monthOf(at("2026-12-01T00:00:00.000Z"))).toBe("2026-12");
    // Back in time (tests pin clocks): the remembered day is not reused outside its range.
    expect(monthOf(at("2026-11-30T23:59:59.999Z"))).toBe("2026-11");
    expect(dayOf(at("2024-02-29T12:00:00Z"))).toBe("2024-02-29");
    // Israel's evening of the 30th is already the 1st in UTC only after 00:00 UTC.
    expect(monthOf(at("2026-11-30T23:30:00+02:00"))).toBe("2026-11");
  });
});

describe("targetPath", () => {
  test("the path the router dispatches (Elysia's own expression), without a URL object", async () => {
    const { targetPath } = await import("../../src/http/request/request-target.ts");
    expect(targetPath("http://localhost:8080/api/v1/prices/?barcode=1")).toBe("/api/v1/prices/");
    expect(targetPath("http://localhost/api/v1/chains")).toBe("/api/v1/chains");
    expect(targetPath("http://[::1]:8080/x?y=1")).toBe("/x");
    // One-letter hosts: the path starts after the host, not 11 characters in.
    expect(targetPath("http://x/xx/api/v1/promos/feed/")).toBe("/xx/api/v1/promos/feed/");
    for (const url of ["http://a.b:1/api/v1/prices/7290000066318/history/?months=6", "http://127.0.0.1/widget/v1/loader.js"]) {
      expect(targetPath(url)).toBe(new URL(url).pathname);
    }
    // The router keeps a fragment (clients do not send one; Bun passes it on): so does the access layer.
    expect(targetPath("http://h/api/v1/chains#x")).toBe("/api/v1/chains#x");
    // Bun's bare path for a missing, empty or unusable Host; a URL that is not http://HOST/…
    for (const url of ["/api/v1/chains/", "http:///api/v1/chains", "https://h/a", "http://h", "http://a b/x", "http://a@b/x", "ftp://h/x"]) {
      expect(targetPath(url)).toBeNull();
    }
  });
});
