import { beforeAll, describe, expect, test } from "bun:test";
import { testApp, commitData, get } from "../helpers/app.ts";
import { Fixture } from "../helpers/fixture.ts";
import { newKey } from "../helpers/keys.ts";
import { refreshChainProducts } from "../../src/db/chain-products.ts";
import { loadSettings } from "../../src/config.ts";
import { ProductSearch } from "../../src/search/index.ts";
import { SearchResponse } from "../../src/modules/search/model.ts";

const ctx = testApp();
const f = new Fixture(ctx.db.prices, ctx.chainIds);
let key: Record<string, string>;
let ids: Record<string, number>;

beforeAll(async () => {
  const s1 = f.store("shufersal", "1");
  const s2 = f.store("shufersal", "2");
  const r1 = f.store("rami-levy", "1");
  const v1 = f.store("victory", "1");
  ids = {
    bamba80: f.product("7290000066004", "במבה 80 גרם", { manufacturer: "אסם", sizeAmount: 80, sizeUnit: "g" }),
    bamba25: f.product("7290000066011", "במבה 25 גרם", { manufacturer: "אסם", sizeAmount: 25, sizeUnit: "g" }),
    nougat: f.product("7290000066028", "במבה נוגט 60 גרם", { manufacturer: "אסם", sizeAmount: 60, sizeUnit: "g", category: "sweets" }),
    milk: f.product("7290004131074", "חלב תנובה 3% 1 ליטר", { manufacturer: "תנובה", sizeAmount: 1000, sizeUnit: "ml" }),
    milk2: f.product("7290004131081", "חלב תנובה 3% 2 ליטר", { manufacturer: "תנובה", sizeAmount: 2000, sizeUnit: "ml" }),
    cottage: f.product("7290004127329", "קוטג' 5% 250 גרם", { manufacturer: "תנובה", sizeAmount: 250, sizeUnit: "g" }),
    coke: f.product("0049000028911", "קוקה קולה 1.5 ליטר", { manufacturer: "החברה המרכזית", sizeAmount: 1500, sizeUnit: "ml" }),
    hostile: f.product("7290000000017", 'שוקולד <script>alert("x")</script> & חלב', { manufacturer: "x" }),
    unsold: f.product("7290000000024", "במבה שאיננה נמכרת", { manufacturer: "אסם" }),
  };
  f.price(s1, ids.bamba80!, 500);
  f.price(s2, ids.bamba80!, 550);
  f.price(r1, ids.bamba80!, 450);
  f.price(v1, ids.bamba80!, 520);
  f.price(s1, ids.bamba25!, 250);
  f.price(r1, ids.nougat!, 690);
  f.price(s1, ids.milk!, 690);
  f.price(r1, ids.milk!, 650);
  f.price(s1, ids.milk2!, 1290);
  f.price(v1, ids.cottage!, 520);
  f.price(s2, ids.coke!, 790);
  f.price(s1, ids.hostile!, 1000);
  refreshChainProducts(ctx.db.prices);
  commitData(ctx.deps);
  await ctx.deps.search!.rebuild(ctx.db.prices);
  key = newKey(ctx.deps, "pro").headers;
});

const call = (path: string) => get(ctx.app, path, key);
const q = (text: string, extra = "") => call(`/api/v1/product-search/?q=${encodeURIComponent(text)}${extra}`);
const names = (body: any) => body.data.map((i: any) => i.name);

describe("GET /api/v1/product-search/", () => {
  test("items carry the contract's fields; relevance order; exact name first", async () => {
    const { status, body } = await q("במבה 80 גרם");
    expect(status).toBe(200);
    expect(body.data[0]).toEqual({
      barcode: "7290000066004",
      chain_id: null,
      kind: "gtin",
      sold_by: null,
      name: "במבה 80 גרם",
      category: "snacks", // classified: the row's category is empty
      image_url: "http://localhost/images/products/7290000066004.svg",
      manufacturer: "אסם",
      unit_qty: null,
      size: 80,
      unit: "g",
      chain_count: 3,
      min_price_ils: "4.50",
    });
    expect(names(body)).toEqual(["במבה 80 גרם", "במבה 25 גרם", "במבה נוגט 60 גרם"]); // never the unsold one
    expect(body.data[2].category).toBe("sweets"); // the stored category wins over the classifier
    expect(body.meta).toMatchObject({ next_cursor: null, total: 3, data_updated_at: "2026-11-22T05:00:00+02:00" });
    expect(typeof body.meta.request_id).toBe("string");
    // Answers are served from a cache without per-request validation: the schema holds.
    expect(SearchResponse.safeParse(body).success).toBe(true);
  });

  test("a repeated query is answered from the cache with the same body; a new data version is not", async () => {
    const first = await q("במבה");
    const again = await q("במבה");
    expect(again.body.data).toEqual(first.body.data);
    expect(again.body.meta.request_id).not.toBe(first.body.meta.request_id);
    expect(SearchResponse.safeParse(again.body).success).toBe(true);
    // The chains' figures change with the data: the cached answer must not survive it.
    ctx.db.prices.run("UPDATE chain_products SET price_min = 400 WHERE product_id = ?", [ids.bamba80!]);
    commitData(ctx.deps);
    const after = await q("במבה");
    expect(after.body.data.find((i: any) => i.barcode === "7290000066004").min_price_ils).toBe("4.00");
    // Back as it was, for the tests that follow.
    refreshChainProducts(ctx.db.prices);
    commitData(ctx.deps);
  });

  test("answers with and without the trailing slash", async () => {
    const a = await call(`/api/v1/product-search/?q=${encodeURIComponent("קוטג'")}`);
    const b = await call(`/api/v1/product-search?q=${encodeURIComponent("קוטג'")}`);
    expect(a.status).toBe(200);
    expect(b.body.data).toEqual(a.body.data);
    expect(names(a.body)).toEqual(["קוטג' 5% 250 גרם"]);
  });

  test("prefix letters, quotes, typos, Latin names and a size in the query", async () => {
    expect(names((await q("והחלב")).body)).toEqual(["חלב תנובה 3% 1 ליטר", "חלב תנובה 3% 2 ליטר", 'שוקולד <script>alert("x")</script> & חלב']);
    expect(names((await q("קוטג׳")).body)).toEqual(["קוטג' 5% 250 גרם"]);
    expect(names((await q("coca cola")).body)).toEqual(["קוקה קולה 1.5 ליטר"]);
    expect(names((await q("קוקה קולע")).body)).toEqual(["קוקה קולה 1.5 ליטר"]); // AND fails → words found partly
    expect(names((await q("חלב 2 ליטר")).body)[0]).toBe("חלב תנובה 3% 2 ליטר");
    expect(names((await q("במבה נוג")).body)).toEqual(["במבה נוגט 60 גרם", "במבה 80 גרם", "במבה 25 גרם"]); // all words first, then some
  });

  test("a barcode finds its product; leading zeros do not matter", async () => {
    for (const code of ["0049000028911", "49000028911", "000049000028911", "7290004127329"]) {
      const { status, body } = await q(code);
      expect(status).toBe(200);
      expect(body.data.length).toBe(1);
      expect(body.data[0].barcode).toBe(code === "7290004127329" ? "7290004127329" : "0049000028911");
    }
    expect((await q("7290000000024")).body.data).toEqual([]); // known product, sold nowhere
  });

  test("chain_id: only products sold there, min price within the chain", async () => {
    const rami = await q("במבה", "&chain_id=rami-levy");
    expect(names(rami.body)).toEqual(["במבה 80 גרם", "במבה נוגט 60 גרם"]);
    expect(rami.body.data[0]).toMatchObject({ chain_count: 3, min_price_ils: "4.50" });
    const shufersal = await q("במבה 80", "&chain_id=shufersal");
    expect(shufersal.body.data[0]).toMatchObject({ barcode: "7290000066004", min_price_ils: "5.00" });
    const unknown = await q("במבה", "&chain_id=no-such-chain");
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("chain_not_found");
    const noStores = await q("במבה", "&chain_id=yochananof"); // a registry chain without data
    expect(noStores.status).toBe(200);
    expect(noStores.body.data).toEqual([]);
  });

  test("category filter; an unknown category is a 400 naming the parameter", async () => {
    expect(names((await q("במבה", "&category=snacks")).body)).toEqual(["במבה 80 גרם", "במבה 25 גרם"]);
    expect(names((await q("במבה", "&category=sweets")).body)).toEqual(["במבה נוגט 60 גרם"]);
    const bad = await q("במבה", "&category=nonsense");
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: "invalid_parameter", param: "category" });
  });

  test("cursor pagination walks every match once, in the first page's order", async () => {
    const all = names((await q("במבה", "&limit=100")).body);
    const seen: string[] = [];
    let path = `/api/v1/product-search/?q=${encodeURIComponent("במבה")}&limit=1`;
    let pages = 0;
    while (path) {
      const { status, body } = await call(path);
      expect(status).toBe(200);
      expect(body.meta.total).toBe(3);
      seen.push(...names(body));
      pages++;
      path = body.meta.next_cursor ? `/api/v1/product-search/?q=${encodeURIComponent("במבה")}&limit=1&cursor=${body.meta.next_cursor}` : "";
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(all);
  });

  test("invalid cursors: garbage, another query's, another data version's", async () => {
    const first = await q("במבה", "&limit=1");
    const cursor = first.body.meta.next_cursor as string;
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const garbage = await q("במבה", "&cursor=%%%");
    expect(garbage.status).toBe(400);
    expect(garbage.body).toMatchObject({ code: "invalid_cursor", param: "cursor" });
    const other = await q("חלב", `&cursor=${cursor}`);
    expect(other.body.code).toBe("invalid_cursor");
    const otherFilter = await q("במבה", `&chain_id=shufersal&cursor=${cursor}`);
    expect(otherFilter.body.code).toBe("invalid_cursor");

    // A new import: the index is rebuilt and old cursors stop working.
    const local = testApp();
    const g = new Fixture(local.db.prices, local.chainIds);
    const store = g.store("shufersal", "1");
    g.price(store, g.product("7290000066004", "במבה 80 גרם"), 500);
    g.price(store, g.product("7290000066011", "במבה 25 גרם"), 250);
    refreshChainProducts(local.db.prices);
    commitData(local.deps);
    await local.deps.search!.rebuild(local.db.prices);
    const page1 = await get(local.app, `/api/v1/product-search/?q=${encodeURIComponent("במבה")}&limit=1`, newKey(local.deps, "pro").headers);
    commitData(local.deps, "2026-11-23T05:00:00+02:00");
    await local.deps.search!.rebuild(local.db.prices);
    const stale = await get(local.app, `/api/v1/product-search/?q=${encodeURIComponent("במבה")}&limit=1&cursor=${page1.body.meta.next_cursor}`, newKey(local.deps, "pro").headers);
    expect(stale.status).toBe(400);
    expect(stale.body.code).toBe("invalid_cursor");
    expect(stale.body.detail).toMatch(/refreshed/);
  });

  test("while the index of an older data version serves, answers are not to be stored (their ETag names the new version)", async () => {
    const local = testApp({ search: new ProductSearch() });
    const localKey = newKey(local.deps, "pro").headers;
    const g = new Fixture(local.db.prices, local.chainIds);
    const store = g.store("shufersal", "1");
    g.price(store, g.product("7290000066004", "במבה 80 גרם"), 500);
    refreshChainProducts(local.db.prices);
    commitData(local.deps);
    await local.deps.search!.rebuild(local.db.prices);
    const path = `/api/v1/product-search/?q=${encodeURIComponent("במבה")}`;
    const built = await get(local.app, path, localKey);
    expect(built.headers.get("cache-control")).toBe("private, max-age=300");

    g.price(store, g.product("7290000066011", "במבה 25 גרם"), 250);
    refreshChainProducts(local.db.prices);
    commitData(local.deps, "2026-11-23T05:00:00+02:00");
    const lagging = await get(local.app, path, localKey);
    expect(lagging.status).toBe(200);
    expect(names(lagging.body)).toEqual(["במבה 80 גרם"]); // the old index serves meanwhile
    expect(lagging.headers.get("cache-control")).toBe("no-store");

    await local.deps.search!.rebuild(local.db.prices);
    const rebuilt = await get(local.app, path, localKey);
    expect(names(rebuilt.body)).toEqual(["במבה 80 גרם", "במבה 25 גרם"]);
    expect(rebuilt.headers.get("cache-control")).toBe("private, max-age=300");
  });

  test("q and limit are validated", async () => {
    for (const path of [
      "/api/v1/product-search/",
      "/api/v1/product-search/?q=",
      `/api/v1/product-search/?q=${"א".repeat(101)}`,
      "/api/v1/product-search/?q=%20%20",
      `/api/v1/product-search/?q=${encodeURIComponent("!?-*")}`, // no letter or digit
      `/api/v1/product-search/?q=${encodeURIComponent("\u05B8\u05BC")}`, // niqqud alone
    ]) {
      const { status, body } = await call(path);
      expect(status).toBe(400);
      expect(body).toMatchObject({ code: "invalid_parameter", param: "q" });
    }
    const limit = await q("במבה", "&limit=0");
    expect(limit.status).toBe(400);
    expect(limit.body.param).toBe("limit");
    expect((await q("א".repeat(100))).status).toBe(200);
  });

  test("image_url follows the image URL template when set", async () => {
    const local = testApp({ settings: loadSettings({ MEHIR_IMAGE_URL_TEMPLATE: "https://img.example/p/{barcode}.png" }) });
    const g = new Fixture(local.db.prices, local.chainIds);
    g.price(g.store("shufersal", "1"), g.product("7290000066004", "במבה 80 גרם"), 500);
    refreshChainProducts(local.db.prices);
    commitData(local.deps);
    await local.deps.search!.rebuild(local.db.prices);
    const { body } = await get(local.app, `/api/v1/product-search/?q=${encodeURIComponent("במבה")}`, newKey(local.deps, "pro").headers);
    expect(body.data[0].image_url).toBe("https://img.example/p/7290000066004.png");
  });
});

describe("503 data_not_ready and readiness", () => {
  test("before the first import, and while the first index is built", async () => {
    const search = new ProductSearch(); // not following: built by hand below
    const local = testApp({ search });
    const localKey = newKey(local.deps, "pro").headers;
    const path = `/api/v1/product-search/?q=${encodeURIComponent("במבה")}`;
    const before = await get(local.app, path, localKey);
    expect(before.status).toBe(503);
    expect(before.body.code).toBe("data_not_ready");
    expect(before.headers.get("retry-after")).toBe("10");

    const g = new Fixture(local.db.prices, local.chainIds);
    g.price(g.store("shufersal", "1"), g.product("7290000066004", "במבה 80 גרם"), 500);
    refreshChainProducts(local.db.prices);
    commitData(local.deps);
    const building = await get(local.app, path, localKey);
    expect(building.status).toBe(503);
    expect(building.body.code).toBe("data_not_ready");
    expect(building.headers.get("retry-after")).toBe("5");
    expect((await get(local.app, "/readyz")).status).toBe(503);

    await search.rebuild(local.db.prices);
    expect((await get(local.app, path, localKey)).status).toBe(200);
    const ready = await get(local.app, "/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ ready: true, search: true });
  });
});

describe("GET /images/products/{barcode}.svg", () => {
  test("an SVG label with the name escaped, the size and the category colour", async () => {
    const res = await ctx.app.handle(new Request("http://localhost/images/products/7290000000017.svg"));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/svg+xml; charset=utf-8");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const svg = await res.text();
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).not.toContain("<script");
    expect(svg).toContain("&lt;script&gt;");
    expect(svg).toContain("&amp;");
    expect(svg).toContain("&quot;x&quot;");
    const milk = await (await ctx.app.handle(new Request("http://localhost/images/products/7290004131074.svg"))).text();
    expect(milk).toContain("1 ליטר");
    expect(milk).toContain("חלב ומוצריו"); // dairy label
    expect(milk).toContain("#fdd835"); // dairy colour
  });

  test("leading zeros do not matter; unknown barcodes and other names are 404", async () => {
    const zero = await ctx.app.handle(new Request("http://localhost/images/products/49000028911.svg"));
    expect(zero.status).toBe(200);
    expect(await zero.text()).toContain("0049000028911");
    const unknown = await get(ctx.app, "/images/products/1234567890123.svg");
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("product_not_found");
    const other = await get(ctx.app, "/images/products/abc.png");
    expect(other.status).toBe(404);
    expect(other.body.code).toBe("not_found");
  });

  test("search items link to images that exist", async () => {
    const { body } = await q("קוקה קולה");
    const url = new URL(body.data[0].image_url);
    expect((await ctx.app.handle(new Request(url))).status).toBe(200);
  });
});

describe("OpenAPI", () => {
  test("the endpoint is documented with its parameters", async () => {
    const { status, body } = await get(ctx.app, "/docs/json");
    expect(status).toBe(200);
    const op = body.paths["/api/v1/product-search"]?.get ?? body.paths["/api/v1/product-search/"]?.get;
    expect(op.tags).toEqual(["search"]);
    expect(op.summary).toMatch(/Search products/);
    const params = Object.fromEntries(op.parameters.filter((p: any) => p.in === "query").map((p: any) => [p.name, p]));
    expect(Object.keys(params).sort()).toEqual(["category", "chain_id", "cursor", "limit", "q"]);
    expect(params.q.required).toBe(true);
    expect(params.limit.required).not.toBe(true);
    expect(params.q.description ?? params.q.schema?.description).toMatch(/Prefix letters/);
  });
});
