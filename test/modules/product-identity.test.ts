import { beforeAll, describe, expect, test } from "bun:test";
import { testApp, commitData, get } from "../helpers/app.ts";
import { Fixture } from "../helpers/fixture.ts";
import { newKey } from "../helpers/keys.ts";
import { refreshChainProducts } from "../../src/db/chain-products.ts";
import { resolveProduct } from "../../src/identity/resolve.ts";
import { insertPublishableKey, publishableAccess } from "../helpers/publishable-key.ts";
import { requestState } from "../../src/http/request/request-state.ts";

// Identity rules (README "Product identity"): a GTIN shared by chains; Victory's own item under the
// same digits as that GTIN (ItemType 0 colliding with a real GTIN); internal code 4087 used by two
// chains for different items; internal code 555 used by Victory only.
const ctx = testApp();
const f = new Fixture(ctx.db.prices, ctx.chainIds);
let key: Record<string, string>;
let pk: ReturnType<typeof insertPublishableKey>;

beforeAll(async () => {
  const s1 = f.store("shufersal", "1");
  const r1 = f.store("rami-levy", "1");
  const v1 = f.store("victory", "1");
  const milk = f.product("7290000066318", "חלב 3% 1 ליטר");
  const victoryOwn = f.product("7290000066318", "מאפה בוטיק במשקל", { scopeChain: "victory" });
  const tomatoShufersal = f.product("4087", "עגבניות", { scopeChain: "shufersal" });
  const tomatoRami = f.product("4087", "עגבניה", { scopeChain: "rami-levy" });
  const dill = f.product("555", "שמיר", { scopeChain: "victory" });
  f.price(s1, milk, 690);
  f.price(r1, milk, 650);
  f.price(v1, victoryOwn, 2990);
  f.price(s1, tomatoShufersal, 790);
  f.price(r1, tomatoRami, 590);
  f.price(v1, dill, 390);
  f.history(s1, tomatoShufersal, "2026-10-01T06:00:00+03:00", 790);
  f.history(r1, tomatoRami, "2026-10-01T06:00:00+03:00", 590);
  refreshChainProducts(ctx.db.prices);
  commitData(ctx.deps);
  await ctx.deps.search!.rebuild(ctx.db.prices);
  key = newKey(ctx.deps, "pro").headers;
  pk = insertPublishableKey(ctx.db.accounts, { allowedOrigins: [] });
});

const call = (path: string) => get(ctx.app, path, key);
const post = async (path: string, body: unknown) => {
  const res = await ctx.app.handle(new Request(`http://localhost${path}`, { method: "POST", headers: { ...key, "content-type": "application/json" }, body: JSON.stringify(body) }));
  return { status: res.status, body: (await res.json()) as any };
};
async function widget(path: string) {
  const request = new Request(`http://localhost${path}&key=${pk.key}`);
  requestState(request).access ??= publishableAccess(pk.keyId, pk.accountId, pk.key);
  const res = await ctx.app.handle(request);
  return { status: res.status, body: (await res.json()) as any };
}

describe("resolveProduct", () => {
  test("a bare GTIN is the shared product even when a chain uses the same digits internally", () => {
    const r = resolveProduct(ctx.db.prices, { barcode: "007290000066318" });
    expect(r.ok && r.product.scope_chain_id).toBe(0);
  });
  test("the pair (code, chain) is that chain's own item, also when its digits equal a GTIN", () => {
    const r = resolveProduct(ctx.db.prices, { barcode: "7290000066318", chain_id: "victory" });
    expect(r.ok && r.product.name).toBe("מאפה בוטיק במשקל");
    const shared = resolveProduct(ctx.db.prices, { barcode: "7290000066318", chain_id: "shufersal" });
    expect(shared.ok && shared.product.scope_chain_id).toBe(0);
  });
  test("a bare code several chains use is ambiguous, with every candidate", () => {
    const r = resolveProduct(ctx.db.prices, { barcode: "4087" });
    expect(r).toEqual({
      ok: false,
      error: "ambiguous_product",
      candidates: expect.arrayContaining([
        { barcode: "4087", chain_id: "shufersal", name: "עגבניות" },
        { barcode: "4087", chain_id: "rami-levy", name: "עגבניה" },
      ]),
    });
    expect(!r.ok && r.error === "ambiguous_product" && r.candidates.length).toBe(2);
  });
  test("one chain's code alone resolves; another chain's pair, unknown codes and malformed ids do not", () => {
    const one = resolveProduct(ctx.db.prices, { barcode: "555" });
    expect(one.ok && one.product.name).toBe("שמיר");
    expect(resolveProduct(ctx.db.prices, { barcode: "555", chain_id: "shufersal" })).toEqual({ ok: false, error: "product_not_found" });
    expect(resolveProduct(ctx.db.prices, { barcode: "999" })).toEqual({ ok: false, error: "product_not_found" });
    expect(resolveProduct(ctx.db.prices, { barcode: "12a" })).toEqual({ ok: false, error: "invalid" });
    expect(resolveProduct(ctx.db.prices, { barcode: "g-" })).toEqual({ ok: false, error: "invalid" });
    expect(resolveProduct(ctx.db.prices, { barcode: "g-nothing-here" })).toEqual({ ok: false, error: "product_not_found" });
  });
});

describe("the endpoints follow the same rule", () => {
  test("/prices/: the colliding internal item is reachable with its chain, and priced", async () => {
    const own = await call("/api/v1/prices/?barcode=7290000066318&chain_id=victory");
    expect(own.status).toBe(200);
    expect(own.body.data.name).toBe("מאפה בוטיק במשקל");
    expect(own.body.data.prices.map((p: any) => [p.chain_id, p.price_ils])).toEqual([["victory", "29.90"]]);
    const shared = await call("/api/v1/prices/?barcode=7290000066318");
    expect(shared.body.data.prices.map((p: any) => p.chain_id)).toEqual(["rami-levy", "shufersal"]);
  });

  test("/prices/: an ambiguous bare code is 400 ambiguous_product listing the candidates", async () => {
    const { status, body } = await call("/api/v1/prices/?barcode=4087");
    expect(status).toBe(400);
    expect(body.code).toBe("ambiguous_product");
    expect(body.param).toBe("barcode");
    expect(body.type).toBe("/docs/errors#ambiguous_product");
    expect(body.candidates.map((c: any) => c.chain_id).sort()).toEqual(["rami-levy", "shufersal"]);
    const picked = await call(`/api/v1/prices/?barcode=${body.candidates[0].barcode}&chain_id=${body.candidates[0].chain_id}`);
    expect(picked.status).toBe(200);
  });

  test("bad input: unknown → 404 product_not_found, malformed → 400 invalid_parameter naming barcode", async () => {
    expect((await call("/api/v1/prices/?barcode=999")).body.code).toBe("product_not_found");
    const bad = await call("/api/v1/prices/?barcode=tomato");
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: "invalid_parameter", param: "barcode" });
    expect((await call("/api/v1/prices/555/history/?chain_id=shufersal")).status).toBe(404);
  });

  test("history accepts the pair", async () => {
    const { status, body } = await call("/api/v1/prices/4087/history/?chain_id=rami-levy&months=3");
    expect(status).toBe(200);
    expect(body.data.name).toBe("עגבניה");
    expect(body.data.history.every((h: any) => h.chain_id === "rami-levy")).toBe(true);
    expect((await call("/api/v1/prices/4087/history/")).body.code).toBe("ambiguous_product");
  });

  test("basket items accept the pair; an ambiguous item is 400 naming it", async () => {
    const ok = await post("/api/v1/basket/compare/", { items: [{ barcode: "4087", chain_id: "rami-levy", quantity: 2 }, { barcode: "7290000066318", quantity: 1 }] });
    expect(ok.status).toBe(200);
    const rami = ok.body.data.stores.find((c: any) => c.chain_id === "rami-levy");
    expect(rami.items.map((i: any) => [i.barcode, i.name, i.line_total_ils])).toEqual([
      ["4087", "עגבניה", "11.80"],
      ["7290000066318", "חלב 3% 1 ליטר", "6.50"],
    ]);
    const shufersal = ok.body.data.stores.find((c: any) => c.chain_id === "shufersal");
    expect(shufersal.missing_items).toEqual(["4087"]);
    const bad = await post("/api/v1/basket/compare/", { items: [{ barcode: "7290000066318", quantity: 1 }, { barcode: "4087", quantity: 1 }] });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: "ambiguous_product", param: "items[1].barcode" });
  });

  test("widget data accepts the pair", async () => {
    const { status, body } = await widget("/api/v1/widget/data/?barcode=7290000066318&chain_id=victory");
    expect(status).toBe(200);
    expect(body.data.name).toBe("מאפה בוטיק במשקל");
    expect(body.data.prices.map((p: any) => p.chain_id)).toEqual(["victory"]);
    expect((await widget("/api/v1/widget/data/?barcode=4087")).body.code).toBe("ambiguous_product");
  });

  test("search and catalog items of internal codes carry chain_id, and following every item answers 200", async () => {
    const { body } = await call(`/api/v1/product-search/?q=${encodeURIComponent("עגבני")}`);
    const tomatoes = body.data.filter((i: any) => i.barcode === "4087");
    expect(tomatoes.map((i: any) => i.chain_id).sort()).toEqual(["rami-levy", "shufersal"]);
    expect(tomatoes.every((i: any) => i.kind === "chain_item")).toBe(true);
    const catalog = await call("/api/v1/chains/victory/catalog/");
    expect(catalog.body.data.map((i: any) => [i.barcode, i.chain_id])).toEqual([
      ["555", "victory"],
      ["7290000066318", "victory"],
    ]);
    const milk = await call("/api/v1/chains/shufersal/catalog/?q=7290000066318");
    expect(milk.body.data[0].chain_id).toBeNull();
    for (const item of [...body.data, ...catalog.body.data]) {
      const qs = `barcode=${item.barcode}${item.chain_id ? `&chain_id=${item.chain_id}` : ""}`;
      const prices = await call(`/api/v1/prices/?${qs}`);
      expect(prices.status).toBe(200);
      expect(prices.body.data.prices.length).toBeGreaterThan(0);
    }
  });
});
