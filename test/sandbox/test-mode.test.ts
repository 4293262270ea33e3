import { beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../src/app.ts";
import { createServices, type Services } from "../../src/services.ts";
import { loadSettings } from "../../src/config.ts";
import { openMemory } from "../../src/db/open.ts";
import { syncRegistry } from "../../src/db/sync-registry.ts";
import { DataState, bumpDataVersion } from "../../src/data/data-state.ts";
import { loadRegistry } from "../../src/registry.ts";
import { refreshChainProducts } from "../../src/db/chain-products.ts";
import { createAccount } from "../../src/accounts/accounts.ts";
import { createKey, revokeKeyById } from "../../src/accounts/keys.ts";
import { openSandboxDatabase, Sandbox } from "../../src/sandbox/sandbox.ts";
import { Fixture } from "../helpers/fixture.ts";
import { get } from "../helpers/app.ts";

const NOW = new Date("2026-11-22T10:00:00Z");
const LIVE_BARCODE = "7290099999997"; // in the live fixture only (not a demo barcode)
const registry = loadRegistry();

/** A server's app whose live data is portal data (one product), with a small sandbox made inline on first use. */
function liveServer(source: "live" | "demo" = "live") {
  const db = openMemory();
  const chainIds = syncRegistry(db.prices, registry);
  const f = new Fixture(db.prices, chainIds);
  const store = f.store("shufersal", "1");
  f.price(store, f.product(LIVE_BARCODE, "מוצר חי בלבד"), 990);
  f.price(store, f.product("7290099999980", "עוד מוצר חי"), 1290);
  refreshChainProducts(db.prices);
  bumpDataVersion(db.prices, "2026-11-22T05:00:00+02:00", "live");
  const sandbox = new Sandbox({ db: openSandboxDatabase(":memory:", registry), registry, demo: { scale: 0.01, importer: "inline", now: NOW } });
  const deps = createServices(loadSettings({ MEHIR_SOURCE: source }), db, { registry, data: new DataState(db.prices), now: () => NOW, sandbox });
  const app = createApp(deps);
  const account = createAccount(db.accounts, { email: `dev-${source}@example.com`, plan: "pro" }, NOW);
  const free = createAccount(db.accounts, { email: `free-${source}@example.com`, plan: "free" }, NOW);
  const key = (kind: "live" | "test", accountId = account.id) => createKey(db.accounts, { accountId, kind }, NOW);
  const test = key("test");
  const live = key("live");
  const freeTest = key("test", free.id);
  return { app, deps, db, sandbox, testKey: { "x-api-key": test.key }, liveKey: { "x-api-key": live.key }, freeTestKey: { "x-api-key": freeTest.key }, testKeyId: test.record.id, accountId: account.id };
}

test("until the sandbox is made a test key gets 503 data_not_ready with Retry-After; live keys are answered meanwhile", async () => {
    const s = liveServer();
    const first = await get(s.app, "/api/v1/chains/", s.testKey);
    expect(first.status).toBe(503);
    expect(first.body.code).toBe("data_not_ready");
    expect(Number(first.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(s.sandbox.inProgress).toBe(true); // the first test-key request started it
    const live = await get(s.app, `/api/v1/prices/?barcode=${LIVE_BARCODE}`, s.liveKey);
    expect(live.status).toBe(200);
    await s.sandbox.ensure();
    expect(s.sandbox.ready).toBe(true);
    expect((await get(s.app, "/api/v1/chains/", s.testKey)).status).toBe(200);
}, 120_000);

describe("test mode on a server with live data", () => {
  const s = liveServer();
  let demoBarcode = "";

  beforeAll(async () => {
    await get(s.app, "/api/v1/chains/", s.testKey);
    await s.sandbox.ensure();
    demoBarcode = (s.sandbox.db.query("SELECT barcode FROM chain_products ORDER BY store_count DESC, barcode LIMIT 1").get() as { barcode: string }).barcode;
    await s.sandbox.search!.settled();
  }, 120_000);

  test("a test key reads the sandbox, a live key the live data; neither sees the other's products", async () => {
    const testDemo = await get(s.app, `/api/v1/prices/?barcode=${demoBarcode}`, s.testKey);
    expect(testDemo.status).toBe(200);
    expect(testDemo.body.meta).toMatchObject({ livemode: false, source: "demo" });
    expect((await get(s.app, `/api/v1/prices/?barcode=${LIVE_BARCODE}`, s.testKey)).body.code).toBe("product_not_found");

    const liveDemo = await get(s.app, `/api/v1/prices/?barcode=${demoBarcode}`, s.liveKey);
    expect(liveDemo.body.code).toBe("product_not_found");
    const live = await get(s.app, `/api/v1/prices/?barcode=${LIVE_BARCODE}`, s.liveKey);
    expect(live.body.meta).toMatchObject({ livemode: true, source: "live" });
    expect(live.body.data.prices[0].price_ils).toBe("9.90");

    const chains = await get(s.app, "/api/v1/chains/", s.testKey);
    expect(chains.body.meta.source).toBe("demo");
    const liveChains = await get(s.app, "/api/v1/chains/", s.liveKey);
    expect(liveChains.body.meta.source).toBe("live");
    const storesOf = (body: any) => body.data.reduce((n: number, c: any) => n + c.store_count, 0);
    expect(storesOf(liveChains.body)).toBe(1);
    expect(storesOf(chains.body)).toBeGreaterThan(1);
  });

  test("every answer carries meta.livemode: false for the test key on each endpoint", async () => {
    await s.sandbox.search!.settled();
    const chain = (s.sandbox.db.query("SELECT c.slug FROM chain_products cp JOIN chains c ON c.id = cp.chain_id WHERE cp.barcode = ? LIMIT 1").get(demoBarcode) as { slug: string }).slug;
    const paths = [
      "/api/v1/chains/",
      `/api/v1/prices/?barcode=${demoBarcode}`,
      `/api/v1/prices/?barcode=${demoBarcode}&granularity=store`,
      `/api/v1/prices/${demoBarcode}/history/`,
      `/api/v1/chains/${chain}/catalog/?limit=2`,
      "/api/v1/promos/feed/?limit=2",
      `/api/v1/product-search/?q=${demoBarcode}`,
    ];
    for (const path of paths) {
      const res = await get(s.app, path, s.testKey);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect({ path, livemode: res.body.meta.livemode }).toEqual({ path, livemode: false });
    }
    const search = await get(s.app, `/api/v1/product-search/?q=${demoBarcode}`, s.testKey);
    expect(search.body.data[0].barcode).toBe(demoBarcode);
    const basket = await s.app.handle(
      new Request("http://localhost/api/v1/basket/compare/", { method: "POST", headers: { ...s.testKey, "content-type": "application/json" }, body: JSON.stringify({ items: [{ barcode: demoBarcode, quantity: 1 }] }) }),
    );
    const basketBody = (await basket.json()) as any;
    expect(basket.status).toBe(200);
    expect(basketBody.meta.livemode).toBe(false);
    expect(basketBody.data.missing_items).toEqual([]);
    const liveAnswer = await get(s.app, "/api/v1/promos/feed/?limit=2", s.liveKey);
    expect(liveAnswer.body.meta.livemode).toBe(true);
  });

  test("test keys never use the quota; live keys do", async () => {
    for (let i = 0; i < 5; i++) expect((await get(s.app, `/api/v1/prices/?barcode=${demoBarcode}`, s.testKey)).status).toBe(200);
    // Counts are flushed to the database at intervals: compare the ledger's figure in the header.
    const test = await get(s.app, `/api/v1/prices/?barcode=${demoBarcode}`, s.testKey);
    const liveA = await get(s.app, `/api/v1/prices/?barcode=${LIVE_BARCODE}`, s.liveKey);
    const liveB = await get(s.app, `/api/v1/prices/?barcode=${LIVE_BARCODE}`, s.liveKey);
    expect(Number(liveB.headers.get("x-quota-remaining"))).toBe(Number(liveA.headers.get("x-quota-remaining")) - 1);
    expect(test.body.meta.quota_remaining).toBe(Number(liveA.headers.get("x-quota-remaining")) + 1);
    const again = await get(s.app, `/api/v1/prices/?barcode=${demoBarcode}`, s.testKey);
    expect(again.body.meta.quota_remaining).toBe(Number(liveB.headers.get("x-quota-remaining")));
  });

  test("ETags differ between live and test mode; a live ETag gets no 304 under a test key", async () => {
    const live = await get(s.app, "/api/v1/chains/", s.liveKey);
    const test = await get(s.app, "/api/v1/chains/", s.testKey);
    const liveTag = live.headers.get("etag")!;
    const testTag = test.headers.get("etag")!;
    expect(liveTag).toBeTruthy();
    expect(testTag).toBeTruthy();
    expect(testTag).not.toBe(liveTag);
    expect((await get(s.app, "/api/v1/chains/", { ...s.testKey, "if-none-match": liveTag })).status).toBe(200);
    expect((await get(s.app, "/api/v1/chains/", { ...s.liveKey, "if-none-match": testTag })).status).toBe(200);
    expect((await get(s.app, "/api/v1/chains/", { ...s.testKey, "if-none-match": testTag })).status).toBe(304);
    expect(test.headers.get("last-modified")).not.toBe(live.headers.get("last-modified"));
  });

  test("a cursor made in the sandbox is refused with a live key, and the reverse", async () => {
    const promos = await get(s.app, "/api/v1/promos/feed/?limit=1", s.testKey);
    const cursor = promos.body.meta.next_cursor as string;
    expect(cursor).toBeTruthy();
    const withLive = await get(s.app, `/api/v1/promos/feed/?limit=1&cursor=${cursor}`, s.liveKey);
    expect(withLive.status).toBe(400);
    expect(withLive.body.code).toBe("invalid_cursor");
    expect(withLive.body.detail).toContain("test key");
    expect((await get(s.app, `/api/v1/promos/feed/?limit=1&cursor=${cursor}`, s.testKey)).status).toBe(200);

    const chains = await get(s.app, "/api/v1/chains/", s.liveKey);
    const liveChain = chains.body.data.find((c: any) => c.store_count > 0).chain_id;
    const catalog = await get(s.app, `/api/v1/chains/${liveChain}/catalog/?limit=1`, s.liveKey);
    const liveCursor = catalog.body.meta.next_cursor as string;
    expect(liveCursor).toBeTruthy();
    const withTest = await get(s.app, `/api/v1/chains/${liveChain}/catalog/?limit=1&cursor=${liveCursor}`, s.testKey);
    expect(withTest.body.code).toBe("invalid_cursor");
    expect(withTest.body.detail).toContain("live key");
  });

  test("batch prices and stores read the sandbox for a test key; exports (live data files) are live-only", async () => {
    const batch = (key: Record<string, string>, barcode: string) =>
      s.app.handle(new Request("http://localhost/api/v1/prices/batch/", { method: "POST", headers: { ...key, "content-type": "application/json" }, body: JSON.stringify({ items: [{ barcode }] }) }));
    const testBatch = (await (await batch(s.testKey, demoBarcode)).json()) as any;
    expect(testBatch.meta.livemode).toBe(false);
    expect(testBatch.data[0].prices.length).toBeGreaterThan(0);
    expect(((await (await batch(s.testKey, LIVE_BARCODE)).json()) as any).data[0].error.code).toBe("product_not_found");
    expect(((await (await batch(s.liveKey, demoBarcode)).json()) as any).data[0].error.code).toBe("product_not_found");

    const testStores = await get(s.app, "/api/v1/stores/?limit=100", s.testKey);
    const liveStores = await get(s.app, "/api/v1/stores/?limit=100", s.liveKey);
    expect(testStores.body.meta.livemode).toBe(false);
    expect(liveStores.body.data.length).toBe(1);
    expect(testStores.body.data.length).toBeGreaterThan(1);

    expect((await get(s.app, "/api/v1/exports/", s.testKey)).body.code).toBe("live_key_required");
  });

  test("test keys keep their account's plan gates; a revoked test key is 401", async () => {
    const gated = await get(s.app, `/api/v1/prices/${demoBarcode}/history/`, s.freeTestKey);
    expect(gated.status).toBe(403);
    expect(gated.body.code).toBe("plan_upgrade_required");
    revokeKeyById(s.db.accounts, s.testKeyId, NOW);
    s.deps.access!.keys.invalidate(); // as the portal does after revoking on the server's connection
    const revoked = await get(s.app, "/api/v1/chains/", s.testKey);
    expect(revoked.status).toBe(401);
    expect(revoked.body.code).toBe("invalid_api_key");
  });

  test("widget data (publishable keys are live) and public images: the image of a sandbox product is served", async () => {
    const image = await s.app.handle(new Request(`http://localhost/images/products/${demoBarcode}.svg`));
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toContain("svg");
  });
});

describe("test mode on a demo server", () => {
  const s = liveServer("demo");
  beforeAll(() => {
    // The live data is the demo: no sandbox of its own is needed.
    bumpDataVersion(s.db.prices, "2026-11-22T06:00:00+02:00", "demo");
    s.deps.data.refresh();
  });

  test("both key kinds read the same data; meta.livemode still tells them apart; no sandbox is made", async () => {
    const test = await get(s.app, `/api/v1/prices/?barcode=${LIVE_BARCODE}`, s.testKey);
    const live = await get(s.app, `/api/v1/prices/?barcode=${LIVE_BARCODE}`, s.liveKey);
    expect(test.status).toBe(200);
    expect(test.body.data).toEqual(live.body.data);
    expect(test.body.meta.livemode).toBe(false);
    expect(live.body.meta.livemode).toBe(true);
    expect(test.headers.get("etag")).not.toBe(live.headers.get("etag"));
    expect(s.sandbox.inProgress || s.sandbox.ready).toBe(false);
  });

  test("price alerts are live-only: a test key gets 403 live_key_required, a live key is served", async () => {
    const body = JSON.stringify({ barcode: LIVE_BARCODE, condition: { below_ils: "5.00" }, url: "https://hooks.example/x" });
    const post = (headers: Record<string, string>) => s.app.handle(new Request("http://localhost/api/v1/alerts/", { method: "POST", headers: { ...headers, "content-type": "application/json" }, body }));
    const refused = await post(s.testKey);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as any).code).toBe("live_key_required");
    const list = await get(s.app, "/api/v1/alerts/", s.testKey);
    expect(list.body.code).toBe("live_key_required");
    expect((await get(s.app, "/api/v1/alerts/", s.liveKey)).status).toBe(200);
  });
});

test("same seed everywhere: sandboxes made on different days hold the same chains, stores, products and barcodes", async () => {
  const made = async (now: Date) => {
    const sandbox = new Sandbox({ db: openSandboxDatabase(":memory:", registry), registry, demo: { scale: 0.01, importer: "inline", now } });
    await sandbox.ensure();
    return {
      products: sandbox.db.query("SELECT barcode, name, manufacturer FROM products ORDER BY barcode, name").all(),
      stores: sandbox.db.query("SELECT c.slug, s.store_code, s.name, s.city FROM stores s JOIN chains c ON c.id = s.chain_id ORDER BY 1, 2").all(),
    };
  };
  const a = await made(new Date("2026-11-22T10:00:00Z"));
  const b = await made(new Date("2027-03-05T07:00:00Z"));
  expect(a.products.length).toBeGreaterThan(100);
  expect(b.products).toEqual(a.products);
  expect(b.stores).toEqual(a.stores);
}, 180_000);
