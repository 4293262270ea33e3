import { beforeAll, describe, expect, test } from "bun:test";
import { testApp, commitData, get } from "../helpers/app.ts";
import { Fixture } from "../helpers/fixture.ts";
import { newKey } from "../helpers/keys.ts";
import { refreshChainProducts } from "../../src/db/chain-products.ts";
import { CatalogResponse } from "../../src/modules/catalog/model.ts";

const ctx = testApp();
const f = new Fixture(ctx.db.prices, ctx.chainIds);
let key: Record<string, string>;

beforeAll(async () => {
  const s1 = f.store("shufersal", "1");
  const s2 = f.store("shufersal", "2");
  const r1 = f.store("rami-levy", "1");
  const bamba = f.product("7290000066004", "במבה 80 גרם", { manufacturer: "אסם", category: "snacks" });
  const milk = f.product("7290000066318", "חלב 3% 1 ליטר", { manufacturer: "תנובה", category: "dairy" });
  const cottage = f.product("7290000066011", "קוטג' 5% 250 גרם", { manufacturer: "תנובה", category: "dairy" });
  const bread = f.product("0072900000662", "לחם אחיד פרוס", { category: "bakery" });
  const tomato = f.product("4011", "עגבניות במשקל", { category: "produce", scopeChain: "shufersal" });
  f.price(s1, bamba, 500);
  f.price(s2, bamba, 550);
  f.price(s1, milk, 690);
  f.price(s2, cottage, 520);
  f.price(s1, bread, 750);
  f.price(s1, tomato, 990);
  f.price(r1, milk, 650); // another chain: not in Shufersal's figures
  f.promotion("shufersal", "P1", { stores: [s2], items: [cottage], minQty: 1, discountedPrice: 450 });
  f.promotion("shufersal", "P2", { stores: [s1], items: [milk], minQty: 1, discountedPrice: 400, clubOnly: true });
  f.promotion("shufersal", "P3", { stores: [s1], items: [bamba], minQty: 3, discountedPrice: 1000 });
  refreshChainProducts(ctx.db.prices);
  commitData(ctx.deps);
  key = newKey(ctx.deps, "pro").headers;
});

const call = (path: string) => get(ctx.app, path, key);

describe("GET /api/v1/chains/{id}/catalog/", () => {
  test("products in barcode order with min/max, store count and promotion flag", async () => {
    const { status, body } = await call("/api/v1/chains/shufersal/catalog/");
    expect(status).toBe(200);
    expect(body.data.map((i: any) => i.barcode)).toEqual(["0072900000662", "4011", "7290000066004", "7290000066011", "7290000066318"]);
    const byBarcode = Object.fromEntries(body.data.map((i: any) => [i.barcode, i]));
    expect(byBarcode["7290000066004"]).toEqual({
      barcode: "7290000066004",
      chain_id: null, // a GTIN shared by all chains (a chain-internal code carries its chain)
      name: "במבה 80 גרם",
      manufacturer: "אסם",
      category: "snacks",
      price_min_ils: "5.00",
      price_max_ils: "5.50",
      store_count: 2,
      is_on_promotion: false, // 3-for-10 is multi-buy, not a single-unit promotion
    });
    expect(byBarcode["7290000066011"].is_on_promotion).toBe(true);
    expect(byBarcode["7290000066318"]).toMatchObject({ price_min_ils: "6.90", price_max_ils: "6.90", store_count: 1, is_on_promotion: false });
    expect(body.meta.next_cursor).toBeNull();
    expect(body.meta.chain_id).toBe("shufersal");
    // Pages are served from a cache without per-request validation: the schema holds.
    expect(CatalogResponse.safeParse(body).success).toBe(true);
  });

  test("cursor pagination walks every item once", async () => {
    const seen: string[] = [];
    let path = "/api/v1/chains/shufersal/catalog?limit=2";
    let pages = 0;
    while (path) {
      const { status, body } = await call(path);
      expect(status).toBe(200);
      seen.push(...body.data.map((i: any) => i.barcode));
      pages++;
      path = body.meta.next_cursor ? `/api/v1/chains/shufersal/catalog?limit=2&cursor=${body.meta.next_cursor}` : "";
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(["0072900000662", "4011", "7290000066004", "7290000066011", "7290000066318"]);
  });

  test("q and category filters", async () => {
    const dairy = await call("/api/v1/chains/shufersal/catalog?category=dairy");
    expect(dairy.body.data.map((i: any) => i.barcode)).toEqual(["7290000066011", "7290000066318"]);
    const q = await call(`/api/v1/chains/shufersal/catalog?q=${encodeURIComponent("במבה")}`);
    expect(q.body.data.map((i: any) => i.name)).toEqual(["במבה 80 גרם"]);
    const digits = await call("/api/v1/chains/shufersal/catalog?q=72900000660");
    expect(digits.body.data.map((i: any) => i.barcode)).toEqual(["7290000066004", "7290000066011"]);
    // LIKE wildcards are matched literally: '%' finds the two names with a percent sign, '_' none.
    const pct = await call(`/api/v1/chains/shufersal/catalog?q=${encodeURIComponent("%")}`);
    expect(pct.body.data.map((i: any) => i.barcode)).toEqual(["7290000066011", "7290000066318"]);
    const underscore = await call("/api/v1/chains/shufersal/catalog?q=_");
    expect(underscore.body.data).toEqual([]);
  });

  test("a cursor from another query or an older data version is invalid_cursor", async () => {
    const first = await call("/api/v1/chains/shufersal/catalog?limit=2");
    const cursor = first.body.meta.next_cursor as string;
    const other = await call(`/api/v1/chains/shufersal/catalog?limit=3&cursor=${cursor}`);
    expect(other.status).toBe(400);
    expect(other.body).toMatchObject({ code: "invalid_cursor", param: "cursor" });
    const garbage = await call("/api/v1/chains/shufersal/catalog?cursor=%%%");
    expect(garbage.status).toBe(400);
    expect(["invalid_cursor", "invalid_parameter"]).toContain(garbage.body.code);
    const junk = await call("/api/v1/chains/shufersal/catalog?cursor=bm90LWpzb24");
    expect(junk.body.code).toBe("invalid_cursor");
    commitData(ctx.deps);
    const stale = await call(`/api/v1/chains/shufersal/catalog?limit=2&cursor=${cursor}`);
    expect(stale.status).toBe(400);
    expect(stale.body.code).toBe("invalid_cursor");
  });

  test("unknown chain → 404 chain_not_found; bad limit → 400", async () => {
    const unknown = await call("/api/v1/chains/no-such-chain/catalog/");
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("chain_not_found");
    for (const limit of ["0", "101", "abc"]) {
      const bad = await call(`/api/v1/chains/shufersal/catalog?limit=${limit}`);
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ code: "invalid_parameter", param: "limit" });
    }
  });
});

describe("GET /api/v1/chains/{id}/catalog/ edges", () => {
  test("limit bounds: 1 and 100 allowed, 0, 101 and -1 refused", async () => {
    expect((await call("/api/v1/chains/shufersal/catalog?limit=1")).body.data).toHaveLength(1);
    expect((await call("/api/v1/chains/shufersal/catalog?limit=100")).body.data).toHaveLength(5);
    // Only plain digits: Number() would read 0x10 as 16 and 1e1 as 10.
    for (const limit of ["101", "-1", "2.5", "0x10", "1e1", "+5", ""]) {
      const bad = await call(`/api/v1/chains/shufersal/catalog?limit=${limit}`);
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ code: "invalid_parameter", param: "limit" });
    }
  });

  test("a cursor made for another chain or other filters is invalid_cursor", async () => {
    const first = await call("/api/v1/chains/shufersal/catalog?limit=1");
    const cursor = first.body.meta.next_cursor as string;
    for (const path of [`/api/v1/chains/rami-levy/catalog?limit=1&cursor=${cursor}`, `/api/v1/chains/shufersal/catalog?limit=1&category=dairy&cursor=${cursor}`]) {
      const res = await call(path);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "invalid_cursor", param: "cursor" });
    }
  });

  test("an id that is not a slug is 400 naming id; a chain with no data is an empty page", async () => {
    const bad = await call("/api/v1/chains/Shufersal/catalog");
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: "invalid_parameter", param: "id" });
    const empty = await call("/api/v1/chains/quik/catalog");
    expect(empty.status).toBe(200);
    expect(empty.body.data).toEqual([]);
    expect(empty.body.meta.next_cursor).toBeNull();
  });
});

describe("cached catalog pages", () => {
  test("a cached page changes when one of its promotions ends, without a new data version", async () => {
    let now = new Date("2026-11-22T10:00:00Z");
    const own = testApp({ now: () => now });
    const g = new Fixture(own.db.prices, own.chainIds);
    const store = g.store("shufersal", "1");
    const milk = g.product("7290000066318", "חלב 3% 1 ליטר", { category: "dairy" });
    g.price(store, milk, 690);
    g.promotion("shufersal", "END", { stores: [store], items: [milk], minQty: 1, discountedPrice: 590, endsAt: "2026-11-22T14:00:00+02:00" });
    refreshChainProducts(own.db.prices);
    commitData(own.deps);
    const ownKey = newKey(own.deps, "pro").headers;
    const page = () => get(own.app, "/api/v1/chains/shufersal/catalog/", ownKey);
    expect((await page()).body.data[0].is_on_promotion).toBe(true);
    expect((await page()).body.data[0].is_on_promotion).toBe(true); // from the cache
    now = new Date("2026-11-22T12:00:01Z"); // 14:00:01 in Israel: the promotion is over
    expect((await page()).body.data[0].is_on_promotion).toBe(false);
  });
});
