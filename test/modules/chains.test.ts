import { beforeAll, describe, expect, test } from "bun:test";
import { testApp, commitData, get } from "../helpers/app.ts";
import { Fixture } from "../helpers/fixture.ts";
import { newKey } from "../helpers/keys.ts";
import { ChainItem } from "../../src/modules/chains/model.ts";
import { refreshChainProducts } from "../../src/db/chain-products.ts";

// now = 2026-11-22T12:00:00+02:00. Hand-made figures:
//   shufersal: 3 stores (one sells nothing), 2 distinct products, newest data 2026-11-22 05:00 → ok
//   rami-levy: 1 store, 1 product, newest data 2026-11-20 06:00 (54 h old) → stale
//   victory:   1 store with no prices, a health row → no_data
//   the rest of the registry: nothing at all → no_data
const ctx = testApp();
const f = new Fixture(ctx.db.prices, ctx.chainIds);
let key: Record<string, string>;

beforeAll(async () => {
  const s1 = f.store("shufersal", "1");
  const s2 = f.store("shufersal", "2");
  f.store("shufersal", "3");
  const r1 = f.store("rami-levy", "1");
  f.store("victory", "1");
  const milk = f.product("7290000066318", "חלב");
  const bamba = f.product("7290000066004", "במבה");
  f.price(s1, milk, 690);
  f.price(s2, milk, 700);
  f.price(s2, bamba, 500);
  f.price(r1, milk, 650);
  refreshChainProducts(ctx.db.prices); // as every import does in its transaction
  const health = ctx.db.prices.prepare(
    "INSERT INTO chain_health (chain_slug, last_data_at, last_attempt_at, last_success_at, last_error, files_fetched, zero_rows) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  health.run("shufersal", "2026-11-22T05:00:00+02:00", "2026-11-22T04:00:00+02:00", "2026-11-22T04:10:00+02:00", null, 7, 0);
  health.run("rami-levy", "2026-11-20T06:00:00+02:00", "2026-11-22T04:00:00+02:00", null, "portal answered 503", 0, 1);
  health.run("victory", "2026-11-22T05:00:00+02:00", null, null, null, 0, 0);
  commitData(ctx.deps);
  key = newKey(ctx.deps, "free").headers;
});

describe("GET /api/v1/chains/", () => {
  test("every registry chain, with counts, freshness and status", async () => {
    const { status, body } = await get(ctx.app, "/api/v1/chains/", key);
    expect(status).toBe(200);
    const registry = ctx.deps.registry.chains;
    expect(body.data.map((c: any) => c.chain_id)).toEqual(registry.map((c) => c.slug));
    expect(body.meta).toMatchObject({ count: registry.length, data_updated_at: "2026-11-22T05:00:00+02:00" });
    for (const c of body.data) expect(ChainItem.safeParse(c).success).toBe(true);
    const by = Object.fromEntries(body.data.map((c: any) => [c.chain_id, c]));
    expect(by.shufersal).toMatchObject({
      name: "שופרסל",
      name_en: "Shufersal",
      chain_codes: ["7290027600007"],
      store_count: 3,
      product_count: 2,
      last_updated_at: "2026-11-22T05:00:00+02:00",
      status: "ok",
      source: "demo",
      last_fetch_success_at: "2026-11-22T04:10:00+02:00",
      last_fetch_files: 7,
      last_fetch_error: null,
      empty_file_flagged: false,
    });
    expect(by["rami-levy"]).toMatchObject({
      store_count: 1,
      product_count: 1,
      last_updated_at: "2026-11-20T06:00:00+02:00",
      status: "stale",
      last_fetch_error: "portal answered 503",
      empty_file_flagged: true,
    });
    expect(by.victory).toMatchObject({ store_count: 1, product_count: 0, status: "no_data", source: "none" });
    expect(by.quik).toMatchObject({ store_count: 0, product_count: 0, last_updated_at: null, status: "no_data", last_fetch_files: 0, empty_file_flagged: false });
    const statuses = body.data.map((c: any) => c.status);
    expect(statuses.filter((s: string) => s === "ok")).toHaveLength(1);
    expect(statuses.filter((s: string) => s === "stale")).toHaveLength(1);
  });

  test("before any import: every chain, all no_data (not 503)", async () => {
    const empty = testApp();
    const emptyKey = newKey(empty.deps, "free").headers;
    const { status, body } = await get(empty.app, "/api/v1/chains", emptyKey);
    expect(status).toBe(200);
    expect(body.data).toHaveLength(empty.deps.registry.chains.length);
    expect(new Set(body.data.map((c: any) => c.status))).toEqual(new Set(["no_data"]));
  });

  test("needs a key; any plan", async () => {
    expect((await get(ctx.app, "/api/v1/chains/")).status).toBe(401);
  });
});

test("a fetch attempt recorded without a new data version shows at once", async () => {
  await get(ctx.app, "/api/v1/chains/", key); // counts cached for this data version
  ctx.db.prices.run("UPDATE chain_health SET last_attempt_at = '2026-11-22T11:00:00+02:00', last_error = 'timeout' WHERE chain_slug = 'shufersal'");
  const { body } = await get(ctx.app, "/api/v1/chains/", key);
  expect(body.data.find((c: any) => c.chain_id === "shufersal")).toMatchObject({ last_fetch_attempt_at: "2026-11-22T11:00:00+02:00", last_fetch_error: "timeout", status: "ok" });
});

test("before the first import the data endpoints answer 503 data_not_ready with Retry-After", async () => {
  const empty = testApp();
  const proKey = newKey(empty.deps, "pro").headers;
  const gets = ["/api/v1/prices/?barcode=7290000066318", "/api/v1/prices/7290000066318/history/", "/api/v1/chains/shufersal/catalog/", "/api/v1/promos/feed/"];
  for (const path of gets) {
    const res = await get(empty.app, path, proKey);
    expect(res.status).toBe(503);
    expect(res.body.code).toBe("data_not_ready");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  }
  const basket = await empty.app.handle(
    new Request("http://localhost/api/v1/basket/compare/", {
      method: "POST",
      headers: { ...proKey, "content-type": "application/json" },
      body: JSON.stringify({ items: [{ barcode: "7290000066318", quantity: 1 }] }),
    }),
  );
  expect(basket.status).toBe(503);
});
