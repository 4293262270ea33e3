import { beforeAll, describe, expect, test } from "bun:test";
import { testApp, commitData, get, FIXED_NOW } from "../helpers/app.ts";
import { widgetSubject } from "../../src/access/quota-ledger.ts";
import { Fixture } from "../helpers/fixture.ts";
import { insertPublishableKey, publishableAccess } from "../helpers/publishable-key.ts";
import { refreshChainProducts } from "../../src/db/chain-products.ts";
import { requestState } from "../../src/http/request/request-state.ts";
import { loadSettings } from "../../src/config.ts";
import { buildWidget } from "../../scripts/build-widget.ts";
import { loadWidgetAssets } from "../../src/modules/widget/assets.ts";
import { dataCors } from "../../src/access/cors.ts";
import { WidgetDataResponse } from "../../src/modules/widget/model.ts";
import { Database } from "bun:sqlite";
import { migrate } from "../../src/db/migrate.ts";
import { ACCOUNT_MIGRATIONS } from "../../src/db/account-schema.ts";

// Hand-computed fixture. Stores: Shufersal s1–s3, Rami Levy r1–r2, Victory v1–v2.
// milk:  s1 6.90, s2 6.90, s3 7.20 → Shufersal 6.90 (3 stores); r1 6.50 (promotion: 5.00 open to all), r2 6.20
//        → Rami Levy shelf 6.20 (tie → lower), effective 5.00 (tie 5.00/6.20 → lower), on promotion; v1 7.00 → Victory 7.00.
// Store counts for the demo page: eggs 7, milk 6, bread 3, salt 1; a Rami Levy internal code in 2 stores (never a demo).
const ctx = testApp();
const f = new Fixture(ctx.db.prices, ctx.chainIds);
const ORIGIN = "https://shop.example";
let pk: ReturnType<typeof insertPublishableKey>;

beforeAll(() => {
  const [s1, s2, s3] = ["1", "2", "3"].map((c) => f.store("shufersal", c));
  const [r1, r2] = ["1", "2"].map((c) => f.store("rami-levy", c));
  const [v1, v2] = ["1", "2"].map((c) => f.store("victory", c));
  const milk = f.product("7290000066318", "חלב 3% 1 ליטר");
  const eggs = f.product("7290000000024", "ביצים L 12");
  const bread = f.product("7290000000017", "לחם אחיד");
  const salt = f.product("7290000000031", "מלח שולחן");
  const internal = f.product("1234", "עוף טרי במשקל", { scopeChain: "rami-levy" });
  for (const [store, price] of [[s1, 690], [s2, 690], [s3, 720], [r1, 650], [r2, 620], [v1, 700]] as const) f.price(store!, milk, price);
  for (const store of [s1, s2, s3, r1, r2, v1, v2]) f.price(store!, eggs, 1290);
  for (const store of [s1, r1, v1]) f.price(store!, bread, 650);
  f.price(v2!, salt, 190);
  for (const store of [r1, r2]) f.price(store!, internal, 3490);
  f.promotion("rami-levy", "R1", { stores: [r1!], items: [milk], minQty: 1, discountedPrice: 500 });
  f.promotion("rami-levy", "R2", { stores: [r2!], items: [milk], minQty: 1, discountedPrice: 300, clubOnly: true });
  refreshChainProducts(ctx.db.prices);
  commitData(ctx.deps, "2026-11-22T05:30:00+02:00");
  pk = insertPublishableKey(ctx.db.accounts, { allowedOrigins: [ORIGIN] });
});

/** A widget-data request as a browser on `origin` sends it, with the access layer's verdict when `accepted`. */
async function widgetCall(path: string, opts: { origin?: string; accepted?: boolean } = {}) {
  const headers: Record<string, string> = opts.origin ? { origin: opts.origin } : {};
  const request = new Request(`http://localhost${path}${path.includes("?") ? "&" : "?"}key=${pk.key}`, { headers });
  if (opts.accepted) requestState(request).access ??= publishableAccess(pk.keyId, pk.accountId, pk.key);
  const res = await ctx.app.handle(request);
  return { status: res.status, headers: res.headers, body: await res.json() };
}

describe("GET /api/v1/widget/data/", () => {
  test("chain entries with the /prices/ rules, cheapest first", async () => {
    const { status, body, headers } = await widgetCall("/api/v1/widget/data/?barcode=7290000066318", { origin: ORIGIN, accepted: true });
    expect(status).toBe(200);
    expect(headers.get("content-type")).toContain("application/json");
    expect(body.data).toEqual({
      barcode: "7290000066318",
      name: "חלב 3% 1 ליטר",
      // The generated label, as in search (no image URL template is set).
      image_url: "http://localhost/images/products/7290000066318.svg",
      prices: [
        { chain_id: "rami-levy", chain_name: "רמי לוי", chain_name_en: "Rami Levy", price_ils: "6.20", effective_price_ils: "5.00", is_on_promotion: true, lowest_price_30d_ils: "6.20", suspect: false, store_count: 2 },
        { chain_id: "shufersal", chain_name: "שופרסל", chain_name_en: "Shufersal", price_ils: "6.90", effective_price_ils: "6.90", is_on_promotion: false, lowest_price_30d_ils: "6.90", suspect: false, store_count: 3 },
        { chain_id: "victory", chain_name: "ויקטורי", chain_name_en: "Victory", price_ils: "7.00", effective_price_ils: "7.00", is_on_promotion: false, lowest_price_30d_ils: "7.00", suspect: false, store_count: 1 },
      ],
      cheapest_chain_id: "rami-levy",
      data_updated_at: "2026-11-22T05:30:00+02:00",
    });
    expect(body.meta.data_updated_at).toBe("2026-11-22T05:30:00+02:00");
    expect(body.meta.request_id).toBe(headers.get("x-request-id"));
    expect(body.meta.quota_remaining).toBeUndefined();
    // Answers are cached and sent without per-request validation: the schema holds.
    expect(WidgetDataResponse.safeParse(body).success).toBe(true);
  });

  test("with and without the trailing slash; leading zeros do not matter", async () => {
    const a = await widgetCall("/api/v1/widget/data?barcode=7290000066318", { accepted: true });
    const b = await widgetCall("/api/v1/widget/data/?barcode=007290000066318", { accepted: true });
    expect(a.status).toBe(200);
    expect(b.body.data).toEqual(a.body.data);
  });

  test("public caching, varying by Origin", async () => {
    const { headers } = await widgetCall("/api/v1/widget/data/?barcode=7290000066318", { origin: ORIGIN, accepted: true });
    expect(headers.get("cache-control")).toBe("public, max-age=300, stale-while-revalidate=3600");
    // Origin (the CORS answer) and Accept-Encoding (answers of 1 KB or more may be gzipped).
    expect(headers.get("vary")).toBe("Origin, Accept-Encoding");
  });

  test("CORS echoes the page's origin only when the access layer accepted a publishable key for it", async () => {
    const accepted = await widgetCall("/api/v1/widget/data/?barcode=7290000066318", { origin: ORIGIN, accepted: true });
    expect(accepted.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(accepted.headers.get("access-control-expose-headers")).toContain("Retry-After");
    expect(accepted.headers.get("access-control-allow-credentials")).toBeNull();
    // Without a publishable verdict from the access layer no data goes cross-origin.
    expect(dataCors(ORIGIN, null, false)["access-control-allow-origin"]).toBeUndefined();
    expect(dataCors(ORIGIN, { ...publishableAccess(1, 1, pk.key), keyKind: "live" }, false)["access-control-allow-origin"]).toBeUndefined();
    expect(dataCors(ORIGIN, publishableAccess(1, 1, pk.key), false)["access-control-allow-origin"]).toBe(ORIGIN);
    const noOrigin = await widgetCall("/api/v1/widget/data/?barcode=7290000066318", { accepted: true });
    expect(noOrigin.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("the secret endpoints send no CORS", async () => {
    const res = await get(ctx.app, "/api/v1/chains/", { origin: ORIGIN });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("unknown product: 404 product_not_found, readable by the widget from any page", async () => {
    const { status, headers, body } = await widgetCall("/api/v1/widget/data/?barcode=7290000099999", { origin: ORIGIN, accepted: true });
    expect(status).toBe(404);
    expect(headers.get("content-type")).toContain("application/problem+json");
    expect(body.code).toBe("product_not_found");
    expect(headers.get("access-control-allow-origin")).toBe("*");
    expect(headers.get("vary")).toBe("Origin");
    expect(headers.get("cache-control") ?? "").not.toContain("public");
  });

  test("a barcode that is not digits: 400 invalid_parameter naming it", async () => {
    const { status, body } = await widgetCall("/api/v1/widget/data/?barcode=abc", { accepted: true });
    expect(status).toBe(400);
    expect(body).toMatchObject({ code: "invalid_parameter", param: "barcode" });
  });

  test("before the first import: 503 data_not_ready", async () => {
    const empty = testApp();
    const key = insertPublishableKey(empty.db.accounts);
    const request = new Request(`http://localhost/api/v1/widget/data/?barcode=1&key=${key.key}`);
    requestState(request).access = publishableAccess(key.keyId, key.accountId, key.key);
    const res = await empty.app.handle(request);
    expect(res.status).toBe(503);
    expect((await res.json()).code).toBe("data_not_ready");
  });

  test("image_url follows the operator's template", async () => {
    const custom = testApp({ settings: loadSettings({ MEHIR_IMAGE_URL_TEMPLATE: "https://img.example/{barcode}.jpg" }) });
    const g = new Fixture(custom.db.prices, custom.chainIds);
    g.price(g.store("shufersal", "1"), g.product("7290000066318", "חלב"), 690);
    commitData(custom.deps);
    const key = insertPublishableKey(custom.db.accounts);
    const request = new Request(`http://localhost/api/v1/widget/data/?barcode=7290000066318&key=${key.key}`);
    requestState(request).access = publishableAccess(key.keyId, key.accountId, key.key);
    const res = await custom.app.handle(request);
    expect(res.status).toBe(200);
    expect((await res.json()).data.image_url).toBe("https://img.example/7290000066318.jpg");
  });

  test("OPTIONS preflight (key in X-API-Key) is answered", async () => {
    const res = await ctx.app.handle(
      new Request("http://localhost/api/v1/widget/data/?barcode=7290000066318", {
        method: "OPTIONS",
        headers: { origin: ORIGIN, "access-control-request-method": "GET", "access-control-request-headers": "x-api-key" },
      }),
    );
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(res.headers.get("access-control-allow-methods")).toBe("GET, OPTIONS");
    expect(res.headers.get("access-control-allow-headers")).toContain("X-API-Key");
    expect(res.headers.get("access-control-max-age")).toBe("86400");
    expect(res.headers.get("vary")).toBe("Origin");
  });
});

describe("/widget/v1/ files", () => {
  test("loader.js: the built bundle, JavaScript, cacheable for an hour, loadable from any origin", async () => {
    const [built] = await buildWidget();
    const res = await ctx.app.handle(new Request("http://localhost/widget/v1/loader.js", { headers: { origin: ORIGIN } }));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("public, max-age=3600");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
    expect(res.headers.get("etag")).toMatch(/^"w1-[0-9a-z]+"$/);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(built!.bytes);
  });

  test("a matching If-None-Match gets 304 without a body", async () => {
    const first = await ctx.app.handle(new Request("http://localhost/widget/v1/loader.js"));
    const etag = first.headers.get("etag")!;
    const again = await ctx.app.handle(new Request("http://localhost/widget/v1/loader.js", { headers: { "if-none-match": `W/${etag}` } }));
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect(again.headers.get("etag")).toBe(etag);
    const other = await ctx.app.handle(new Request("http://localhost/widget/v1/loader.js", { headers: { "if-none-match": '"w1-other"' } }));
    expect(other.status).toBe(200);
  });

  test("an unknown file: 404 problem+json", async () => {
    const res = await get(ctx.app, "/widget/v1/widget.js");
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("not_found");
  });

  test("running from source, the assets are built in memory with ETags of their bytes", async () => {
    const assets = await loadWidgetAssets();
    const loader = assets.get("loader.js")!;
    expect(loader.body.length).toBeGreaterThan(1000);
    expect(loader.etag).toBe(`"w1-${Bun.hash(loader.body).toString(36)}"`);
  });
});

describe("/widget/v1/demo.html", () => {
  const demo = async (query = "") => {
    const res = await ctx.app.handle(new Request(`http://localhost/widget/v1/demo.html${query}`));
    return { res, html: await res.text() };
  };
  const barcodes = (html: string) => [...html.matchAll(/data-svc-widget data-barcode="(\d+)"/g)].map((m) => m[1]);

  test("with a key: the widget on the products sold in most stores, chosen from the data", async () => {
    const { res, html } = await demo(`?key=${pk.key}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(barcodes(html)).toEqual(["7290000000024", "7290000066318", "7290000000017", "7290000000031"]);
    expect(html).toContain(`data-api-key="${pk.key}"`);
    expect(html).toContain('<script src="/widget/v1/loader.js" async></script>');
    expect(html).toContain("http://localhost/widget/v1/loader.js");
    expect(html).not.toContain("1234");
    // The visitor's key may be limited to their own site: the page says so and links the keyless demo.
    expect(html).toContain('<a href="/widget/v1/demo.html">');
  });

  test("the choice follows the data: salt sold in more stores moves up", async () => {
    const other = testApp();
    const g = new Fixture(other.db.prices, other.chainIds);
    const stores = ["1", "2", "3"].map((c) => g.store("shufersal", c));
    const a = g.product("7290000000048", "אורז");
    const b = g.product("7290000000055", "סוכר");
    g.price(stores[0]!, a, 500);
    for (const s of stores) g.price(s, b, 400);
    refreshChainProducts(other.db.prices);
    commitData(other.deps);
    const html = await (await other.app.handle(new Request(`http://localhost/widget/v1/demo.html?key=${pk.key}`))).text();
    expect(barcodes(html)).toEqual(["7290000000055", "7290000000048"]);
  });

  test("a key that is not publishable is not echoed into the page (the demo key is used instead)", async () => {
    const { html } = await demo(`?key=${encodeURIComponent('pk_live_"><script>alert(1)</script>')}`);
    expect(html).not.toContain("alert(1)");
    expect(html).toContain("אינו מפתח פומבי");
    expect(html).not.toContain(`data-api-key="${pk.key}"`);
    const secret = await demo("?key=sk_live_" + "a".repeat(32));
    expect(secret.html).not.toContain("sk_live_");
  });

  test("before the first import the page says the data is coming", async () => {
    const empty = testApp();
    const html = await (await empty.app.handle(new Request(`http://localhost/widget/v1/demo.html?key=${pk.key}`))).text();
    expect(barcodes(html)).toEqual([]);
    expect(html).toContain("עדיין אין נתוני מחירים");
  });
});

describe("/widget/v1/demo.html with the visitor's own key: the notice is what the widgets will do", () => {
  const noteOf = (html: string) => /id="key-note" data-fit="([a-z-]+)"/.exec(html)?.[1] ?? null;
  const page = async (key: string) => (await ctx.app.handle(new Request(`http://localhost/widget/v1/demo.html?key=${key}`))).text();
  /** The widget's own request from the demo page: same origin, so a browser sends Sec-Fetch-Site and no Origin. */
  const widgetCall = (key: string) =>
    ctx.app.handle(new Request(`http://localhost/api/v1/widget/data/?barcode=7290000066318&key=${key}`, { headers: { "sec-fetch-site": "same-origin" } }));

  test("a key limited to other sites: the page says the widgets here are refused, and the service refuses them", async () => {
    const html = await page(pk.key);
    expect(noteOf(html)).toBe("other-origins");
    expect(html).toContain("https://shop.example");
    expect(html).toContain("origin_not_allowed");
    const res = await widgetCall(pk.key);
    expect(res.status).toBe(403);
    expect(((await res.json()) as any).code).toBe("origin_not_allowed");
  });

  test("a key allowing any origin, or this page's origin: the page says it works here, and it does", async () => {
    const anyOrigin = insertPublishableKey(ctx.db.accounts, { allowedOrigins: [] });
    const here = insertPublishableKey(ctx.db.accounts, { allowedOrigins: ["https://shop.example", "http://localhost"] });
    ctx.deps.access!.keys.invalidate();
    expect(noteOf(await page(anyOrigin.key))).toBe("any-origin");
    expect(noteOf(await page(here.key))).toBe("allowed-here");
    expect((await widgetCall(anyOrigin.key)).status).toBe(200);
    expect((await widgetCall(here.key)).status).toBe(200);
  });

  test("an unknown or revoked key: the page says every widget will show a key error", async () => {
    const unknown = "pk_live_" + "Z".repeat(32);
    expect(noteOf(await page(unknown))).toBe("unusable");
    expect((await widgetCall(unknown)).status).toBe(401);
  });

  test("a server-side call (no Origin, no Sec-Fetch-Site) is not a page: origin limits do not apply to it", async () => {
    const res = await ctx.app.handle(new Request(`http://localhost/api/v1/widget/data/?barcode=7290000066318&key=${pk.key}`));
    expect(res.status).toBe(200);
  });
});

describe("the service's demo key (the demo page works out of the box)", () => {
  const ctx2 = testApp();
  const g = new Fixture(ctx2.db.prices, ctx2.chainIds);
  const demoKeyOf = (html: string) => /data-api-key="(pk_live_[A-Za-z0-9]+)"/.exec(html)?.[1] ?? null;
  const page = async (host = "localhost") => (await ctx2.app.handle(new Request(`http://${host}/widget/v1/demo.html`))).text();
  const data = (key: string, headers: Record<string, string> = {}, host = "localhost") =>
    ctx2.app.handle(new Request(`http://${host}/api/v1/widget/data/?barcode=7290000000024&key=${key}`, { headers }));

  beforeAll(() => {
    const s = g.store("shufersal", "1");
    const r = g.store("rami-levy", "1");
    const eggs = g.product("7290000000024", "ביצים L 12");
    g.price(s, eggs, 1290);
    g.price(r, eggs, 1190);
    refreshChainProducts(ctx2.db.prices);
    commitData(ctx2.deps);
  });

  test("without a key the page embeds the service's demo key: made once, stored, the same on every view", async () => {
    expect(ctx2.db.accounts.query("SELECT count(*) AS n FROM service_keys").get()).toEqual({ n: 0 });
    const html = await page();
    const key = demoKeyOf(html);
    expect(key).toMatch(/^pk_live_[A-Za-z0-9]{32}$/);
    expect([...html.matchAll(/data-svc-widget data-barcode="(\d+)"/g)].map((m) => m[1])).toEqual(["7290000000024"]);
    expect(demoKeyOf(await page())).toBe(key);
    expect(ctx2.db.accounts.query("SELECT count(*) AS n FROM service_keys").get()).toEqual({ n: 1 });
    // Stored as every key is (hash, prefix, last 4) and kept raw only in service_keys; its account cannot sign in.
    const row = ctx2.db.accounts
      .query("SELECT k.kind, k.hash, k.allowed_origins, a.password_hash, a.plan FROM service_keys s JOIN api_keys k ON k.id = s.key_id JOIN accounts a ON a.id = k.account_id")
      .get() as Record<string, unknown>;
    expect(row).toEqual({
      kind: "publishable",
      hash: new Bun.CryptoHasher("sha256").update(key!).digest("hex"),
      allowed_origins: '["self"]',
      password_hash: null,
      plan: "free",
    });
    // The copyable snippet does not hand out the demo key (it works only here); it points to the portal.
    expect(/<code id="snippet">[^<]*/.exec(html)![0]).not.toContain(key!);
    expect(html).toContain('href="/portal/"');
  });

  test("the demo key reads widget data on the service's own pages, at whatever host it is reached", async () => {
    const key = demoKeyOf(await page())!;
    const sameOrigin = await data(key); // same-origin GET: browsers send no Origin
    expect(sameOrigin.status).toBe(200);
    expect((await sameOrigin.json()).data.cheapest_chain_id).toBe("rami-levy");
    expect((await data(key, { origin: "http://localhost" })).status).toBe(200);
    const otherHost = await data(key, { origin: "http://127.0.0.1:8080" }, "127.0.0.1:8080");
    expect(otherHost.status).toBe(200);
    expect(otherHost.headers.get("access-control-allow-origin")).toBe("http://127.0.0.1:8080");
  });

  test("the demo key does nothing else: other sites' pages and every secret endpoint refuse it", async () => {
    const key = demoKeyOf(await page())!;
    for (const origin of ["https://evil.example", "http://localhost.evil.example", "null", "http://localhost:8081"]) {
      const res = await data(key, { origin });
      expect(res.status).toBe(403);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect((await res.json()).code).toBe("origin_not_allowed");
    }
    for (const path of ["/api/v1/prices/?barcode=7290000000024", "/api/v1/chains/", "/api/v1/product-search/?q=milk"]) {
      const res = await ctx2.app.handle(new Request(`http://localhost${path}`, { headers: { "x-api-key": key } }));
      expect(res.status).toBe(403);
      expect((await res.json()).code).toBe("publishable_key_not_allowed");
    }
  });

  test("its views count against its own widget quota", async () => {
    const key = demoKeyOf(await page())!;
    const { key_id } = ctx2.db.accounts.query("SELECT key_id FROM service_keys").get() as { key_id: number };
    const used = () => ctx2.deps.access.quota.usedThisMonth(widgetSubject(key_id), FIXED_NOW);
    const before = await used();
    expect((await data(key)).status).toBe(200);
    expect(await used()).toBe(before + 1);
  });

  test("an operator who revokes it turns the demo off: it is not made again, the page asks for a key", async () => {
    const key = demoKeyOf(await page())!;
    ctx2.db.accounts.query("UPDATE api_keys SET revoked_at = '2026-11-22T12:00:00+02:00' WHERE id = (SELECT key_id FROM service_keys)").run();
    ctx2.deps.access.keys.invalidate(); // (the CLI revokes from another process: the key cache notices by itself)
    const html = await page();
    expect(demoKeyOf(html)).toBeNull();
    expect(html).toContain('<input name="key"');
    expect(html).toContain('href="/portal/"');
    expect(ctx2.db.accounts.query("SELECT count(*) AS n FROM service_keys").get()).toEqual({ n: 1 });
    expect((await data(key)).status).toBe(401);
  });
});

describe("accounts schema migration 2 (service_keys)", () => {
  test("an accounts database made before it gains the table; only publishable keys fit", () => {
    const db = new Database(":memory:");
    migrate(db, "accounts.sqlite", ACCOUNT_MIGRATIONS.slice(0, 1));
    db.run("INSERT INTO accounts (email, created_at) VALUES ('a@b.example', 'x')");
    db.run("INSERT INTO api_keys (account_id, kind, hash, prefix, last4, created_at) VALUES (1, 'publishable', 'h', 'pk_live_abcd', 'wxyz', 'x')");
    expect(migrate(db, "accounts.sqlite", ACCOUNT_MIGRATIONS)).toBe(ACCOUNT_MIGRATIONS.length - 1);
    expect(db.query("SELECT count(*) AS n FROM accounts").get()).toEqual({ n: 1 });
    db.run("INSERT INTO service_keys VALUES ('widget-demo', 1, 'pk_live_abcdwxyz', 'x')");
    expect(() => db.run("INSERT INTO service_keys VALUES ('other', 1, 'sk_live_abcdwxyz', 'x')")).toThrow();
    expect(() => db.run("INSERT INTO service_keys VALUES ('other', 1, 'pkxlivexabcd', 'x')")).toThrow();
  });
});
