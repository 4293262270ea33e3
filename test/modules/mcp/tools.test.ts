/**
 * /mcp in-process, with the SDK's own client: the handshake, the tool list, each tool's answer
 * (the API's answer for the same request, plus readable text with the Hebrew names as published).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { testApp, commitData, get } from "../../helpers/app.ts";
import { Fixture } from "../../helpers/fixture.ts";
import { newKey } from "../../helpers/keys.ts";
import { refreshChainProducts } from "../../../src/db/chain-products.ts";
import { loadSettings } from "../../../src/config.ts";
import { TOOLS } from "../../../src/modules/mcp/tools/index.ts";
import { inProcessClient, texts } from "../../helpers/mcp.ts";

const ctx = testApp({ settings: loadSettings({ MEHIR_RATE_PRO: "100000" }) });
const f = new Fixture(ctx.db.prices, ctx.chainIds);
const MILK = "7290000066318";
const BAMBA = "7290000066004";
/** A point in Haifa, 0.67 km from its centre (where the fixture's Haifa stores without coordinates are placed). */
const HAIFA = { lat: 32.8, lon: 34.99 };
let key: Record<string, string>;
let client: Client;

beforeAll(async () => {
  const s1 = f.store("shufersal", "1", { name: "שופרסל דיל חיפה", city: "חיפה", region: "haifa" });
  const s2 = f.store("shufersal", "2", { name: "שופרסל שלי דיזנגוף", city: "תל אביב-יפו", region: "tel-aviv" });
  const r1 = f.store("rami-levy", "1", { name: "רמי לוי חיפה", city: "חיפה", region: "haifa" });
  const milk = f.product(MILK, "חלב תנובה 3% 1 ליטר", { manufacturer: "תנובה", sizeAmount: 1000, sizeUnit: "ml" });
  const bamba = f.product(BAMBA, "במבה אסם 80 גרם", { manufacturer: "אסם", sizeAmount: 80, sizeUnit: "g" });
  f.price(s1, milk, 690);
  f.price(s2, milk, 690);
  f.price(r1, milk, 650);
  f.price(s1, bamba, 500);
  f.price(s2, bamba, 500);
  f.price(r1, bamba, 480);
  f.history(s1, milk, "2026-06-01T06:00:00+03:00", 650);
  f.history(s1, milk, "2026-10-01T06:00:00+03:00", 690);
  f.history(s2, milk, "2026-06-01T06:00:00+03:00", 650);
  f.history(s2, milk, "2026-10-01T06:00:00+03:00", 690);
  f.history(r1, milk, "2026-08-01T06:00:00+03:00", 620);
  f.history(r1, milk, "2026-11-01T06:00:00+02:00", 650);
  // Internal code 4087: a different item at each of two chains (see README "Product identity").
  f.price(s1, f.product("4087", "עגבניות", { scopeChain: "shufersal" }), 790);
  f.price(r1, f.product("4087", "עגבניה", { scopeChain: "rami-levy" }), 590);
  f.promotion("rami-levy", "B3", { stores: [r1], items: [bamba], minQty: 3, discountedPrice: 1000, description: "במבה 3 ב-10" });
  // Rami Levy's Haifa store published its coordinates; the others sit at their city's centre (approximate).
  ctx.db.prices.run("UPDATE stores SET latitude = ?, longitude = ? WHERE id = ?", [32.815, 35.0, r1]);
  refreshChainProducts(ctx.db.prices);
  commitData(ctx.deps);
  await ctx.deps.search!.rebuild(ctx.db.prices);
  key = newKey(ctx.deps, "pro").headers;
  client = await inProcessClient(ctx.app, key);
});

/** The API's answer to the same request, without its own request id. */
async function direct(path: string, init: RequestInit = {}) {
  const res = await ctx.app.handle(new Request(`http://localhost${path}`, { ...init, headers: { ...key, ...(init.headers as Record<string, string>) } }));
  expect(res.status).toBe(200);
  return withoutRequestId(await res.json());
}

function withoutRequestId(body: any) {
  const { request_id, ...meta } = body.meta;
  expect(request_id).toBeString();
  return { ...body, meta };
}

async function call(name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError).toBeFalsy();
  const [summary, json] = texts(result);
  expect(JSON.parse(json!)).toEqual(result.structuredContent as never);
  return { summary: summary!, structured: withoutRequestId(result.structuredContent) };
}

describe("handshake", () => {
  test("initialize names the server, says what it is for and offers tools", () => {
    expect(client.getServerVersion()).toMatchObject({ name: "mehir" });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    const instructions = client.getInstructions()!;
    expect(instructions).toContain("search_products");
    expect(instructions).toMatch(/[\u0590-\u05FF]/);
  });

  test("tools/list shows the nine tools with English and Hebrew wording, their plan and a JSON schema", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      "search_products",
      "get_prices",
      "compare_basket",
      "plan_basket",
      "price_history",
      "list_chains",
      "chain_price_index",
      "find_stores",
      "promotions",
    ]);
    for (const tool of tools) {
      expect(tool.description).toMatch(/[\u0590-\u05FF]{3}/);
      expect(tool.description).toMatch(/[A-Za-z]{3} [A-Za-z]{3}/);
      expect(tool.description).toMatch(/Plan: (Free|Basic|Pro)\. Cost: 1 API call/);
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.annotations?.readOnlyHint).toBe(true);
    }
    const prices = tools.find((t) => t.name === "get_prices")!;
    expect(prices.inputSchema.required).toEqual(["barcode"]);
    expect(Object.keys(prices.inputSchema.properties!)).toEqual(["barcode", "chain_id", "city", "near", "radius_km", "granularity", "limit", "cursor"]);
    const basket = tools.find((t) => t.name === "compare_basket")!.inputSchema as any;
    expect(basket.properties.items.maxItems).toBe(100);
    expect(basket.properties.items.items.properties.quantity).toMatchObject({ minimum: 1, maximum: 99, default: 1 });
    // The plan each tool's description states is the audience of the operation its API request calls.
    const plans = Object.fromEntries(TOOLS.map((t) => [t.name, t.operation.audience]));
    expect(plans).toEqual({
      search_products: "free",
      get_prices: "free",
      compare_basket: "pro",
      plan_basket: "pro",
      price_history: "basic",
      list_chains: "free",
      chain_price_index: "basic",
      find_stores: "free",
      promotions: "pro",
    });
    for (const tool of tools) {
      const audience = plans[tool.name] as string;
      expect(tool.description).toContain(`Plan: ${audience[0]!.toUpperCase()}${audience.slice(1)}.`);
      expect(tool.description).not.toContain("{Plan}");
    }
  });

  test("each tool's request calls the operation it declares", () => {
    const args: Record<string, unknown> = { search_products: { query: "במבה" }, get_prices: { barcode: MILK }, compare_basket: { items: [{ barcode: MILK }] }, plan_basket: { items: [{ barcode: MILK }], near: { lat: 32.0853, lon: 34.7818 } }, price_history: { barcode: MILK } };
    for (const tool of TOOLS) {
      const call = tool.request(tool.input.parse(args[tool.name] ?? {}));
      const route = new RegExp(`^${tool.operation.path.replace(/:[a-z_]+/g, "[^/]+")}/$`);
      expect({ tool: tool.name, method: call.method, path: call.path }).toEqual({ tool: tool.name, method: tool.operation.method.toUpperCase() as "GET" | "POST", path: expect.stringMatching(route) });
    }
  });
});

describe("each tool answers what the API answers", () => {
  test("search_products", async () => {
    const { summary, structured } = await call("search_products", { query: "במבה" });
    expect(structured).toEqual(await direct(`/api/v1/product-search/?q=${encodeURIComponent("במבה")}&limit=10`));
    expect(structured.data[0].barcode).toBe(BAMBA);
    expect(summary).toContain("במבה אסם 80 גרם (אסם) — barcode 7290000066004 — from ₪4.80 at 2 chains");
  });

  test("get_prices: every chain, cheapest first", async () => {
    const { summary, structured } = await call("get_prices", { barcode: MILK });
    expect(structured).toEqual(await direct(`/api/v1/prices/?barcode=${MILK}`));
    expect(structured.data.prices.map((p: any) => [p.chain_id, p.effective_price_ils])).toEqual([
      ["rami-levy", "6.50"],
      ["shufersal", "6.90"],
    ]);
    const lines = summary.split("\n");
    expect(lines[0]).toBe("חלב תנובה 3% 1 ליטר (7290000066318) — 2 chains, cheapest first:");
    expect(lines[1]).toStartWith("- רמי לוי: ₪6.50");
    expect(lines[2]).toStartWith("- שופרסל: ₪6.90");
  });

  test("get_prices in a city, per store", async () => {
    const { summary, structured } = await call("get_prices", { barcode: MILK, city: "חיפה", granularity: "store" });
    expect(structured).toEqual(await direct(`/api/v1/prices/?barcode=${MILK}&city=${encodeURIComponent("חיפה")}&granularity=store`));
    expect(structured.data.prices.map((p: any) => p.store.branch_name)).toEqual(["רמי לוי חיפה", "שופרסל דיל חיפה"]);
    expect(summary).toContain("- רמי לוי — רמי לוי חיפה, חיפה: ₪6.50");
  });

  test("get_prices per store in pages: the endpoint's pages, the next one named in the summary", async () => {
    const first = await call("get_prices", { barcode: MILK, granularity: "store", limit: 1 });
    expect(first.structured).toEqual(await direct(`/api/v1/prices/?barcode=${MILK}&granularity=store&limit=1`));
    expect(first.structured.data.prices).toHaveLength(1);
    expect(first.summary).toContain("call again with cursor = meta.next_cursor and the same limit");
    const whole = await direct(`/api/v1/prices/?barcode=${MILK}&granularity=store`);
    const walked = [...first.structured.data.prices];
    for (let cursor = first.structured.meta.next_cursor; cursor; ) {
      const next = await call("get_prices", { barcode: MILK, granularity: "store", limit: 1, cursor });
      walked.push(...next.structured.data.prices);
      cursor = next.structured.meta.next_cursor;
    }
    expect(walked).toEqual(whole.data.prices);
    expect(walked.length).toBeGreaterThan(1);
  });

  test("find_stores near a point: the stores endpoint's answer, nearest first, approximate places flagged", async () => {
    const { summary, structured } = await call("find_stores", { near: HAIFA, radius_km: 10 });
    expect(structured).toEqual(await direct(`/api/v1/stores/?near=${HAIFA.lat},${HAIFA.lon}&radius_km=10&limit=20`));
    // Shufersal's store at Haifa's centre (0.67 km) before Rami Levy's published place (1.91 km); Tel Aviv is out of range.
    expect(structured.data.map((s: any) => [s.branch_name, s.distance_km, s.coordinates.approximate])).toEqual([
      ["שופרסל דיל חיפה", 0.67, true],
      ["רמי לוי חיפה", 1.91, false],
    ]);
    const lines = summary.split("\n");
    expect(lines[0]).toBe(`2 stores within 10 km of ${HAIFA.lat},${HAIFA.lon}, nearest first:`);
    expect(lines[1]).toBe("- שופרסל שופרסל דיל חיפה, חיפה — 0.67 km (location approximate (city centre))");
    expect(lines[2]).toBe("- רמי לוי רמי לוי חיפה, חיפה — 1.91 km");
  });

  test("find_stores in a city, of a chain, paged", async () => {
    const { summary, structured } = await call("find_stores", { city: "Haifa", chain_id: "shufersal", limit: 1 });
    expect(structured).toEqual(await direct("/api/v1/stores/?city=Haifa&chain_id=shufersal&limit=1"));
    expect(structured.data.map((s: any) => s.branch_name)).toEqual(["שופרסל דיל חיפה"]);
    expect(structured.data[0].distance_km).toBeUndefined();
    expect(summary).toStartWith("1 store in Haifa:");
  });

  test("get_prices near a point: per store, cheapest first, with distances", async () => {
    const { summary, structured } = await call("get_prices", { barcode: MILK, near: HAIFA, radius_km: 10 });
    expect(structured).toEqual(await direct(`/api/v1/prices/?barcode=${MILK}&near=${HAIFA.lat},${HAIFA.lon}&radius_km=10&granularity=store`));
    expect(structured.data.prices.map((p: any) => [p.store.branch_name, p.effective_price_ils, p.distance_km])).toEqual([
      ["רמי לוי חיפה", "6.50", 1.91],
      ["שופרסל דיל חיפה", "6.90", 0.67],
    ]);
    expect(summary).toContain(`near ${HAIFA.lat},${HAIFA.lon} — 2 stores, cheapest first:`);
    expect(summary).toContain("- רמי לוי — רמי לוי חיפה, חיפה (1.91 km): ₪6.50");
  });

  test("get_prices: radius_km without near is the API's invalid_parameter, as a tool error", async () => {
    const result = await client.callTool({ name: "get_prices", arguments: { barcode: MILK, radius_km: 3 } });
    expect(result.isError).toBe(true);
    expect((result.structuredContent as any).error).toMatchObject({ code: "invalid_parameter", param: "radius_km" });
  });

  test("compare_basket near a point: each chain's cheapest store within the radius, named with its distance", async () => {
    const items = [
      { barcode: MILK, quantity: 2 },
      { barcode: BAMBA, quantity: 3 },
    ];
    const { summary, structured } = await call("compare_basket", { items, near: HAIFA, radius_km: 10 });
    const body = JSON.stringify({ items, near: `${HAIFA.lat},${HAIFA.lon}`, radius_km: 10 });
    expect(structured).toEqual(await direct("/api/v1/basket/compare/", { method: "POST", headers: { "content-type": "application/json" }, body }));
    expect(structured.data.stores.map((c: any) => [c.chain_id, c.total_ils, c.store.branch_name, c.store.distance_km])).toEqual([
      ["rami-levy", "23.00", "רמי לוי חיפה", 1.91],
      ["shufersal", "28.80", "שופרסל דיל חיפה", 0.67],
    ]);
    expect(summary.split("\n")[0]).toBe(`Cheapest basket within 10 km of ${HAIFA.lat},${HAIFA.lon}: רמי לוי ₪23.00 (2/2 items). All chains:`);
    expect(summary).toContain("- רמי לוי — רמי לוי חיפה, חיפה (1.91 km): ₪23.00");
    // Near Tel Aviv's centre only Shufersal has a store.
    const { structured: telAviv } = await call("compare_basket", { items, near: { lat: 32.0853, lon: 34.7818 }, radius_km: 2 });
    expect(telAviv.data.stores.map((c: any) => [c.chain_id, c.store.branch_name])).toEqual([["shufersal", "שופרסל שלי דיזנגוף"]]);
  });

  test("compare_basket: promotions applied, cheapest chain first", async () => {
    const items = [
      { barcode: MILK, quantity: 2 },
      { barcode: BAMBA, quantity: 3 },
    ];
    const { summary, structured } = await call("compare_basket", { items });
    expect(structured).toEqual(await direct("/api/v1/basket/compare/", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ items }) }));
    // Rami Levy: 2 × 6.50 + "3 ב-10" = 23.00; Shufersal: 2 × 6.90 + 3 × 5.00 = 28.80.
    expect(structured.data.cheapest_store).toBe("rami-levy");
    expect(summary.split("\n")[0]).toBe("Cheapest basket: רמי לוי ₪23.00 (2/2 items). All chains:");
    expect(summary).toContain("- רמי לוי: ₪23.00 (shelf ₪27.40), 2/2 items");
    expect(summary).toContain("- שופרסל: ₪28.80, 2/2 items");
  });

  test("plan_basket: the stores near a point to buy the list at, as the API plans it", async () => {
    const items = [
      { barcode: MILK, quantity: 2 },
      { barcode: BAMBA, quantity: 3 },
    ];
    const { summary, structured } = await call("plan_basket", { items, near: HAIFA, radius_km: 10, max_stores: 2 });
    const body = JSON.stringify({ items, near: `${HAIFA.lat},${HAIFA.lon}`, radius_km: 10, max_stores: 2 });
    expect(structured).toEqual(await direct("/api/v1/basket/plan/", { method: "POST", headers: { "content-type": "application/json" }, body }));
    expect(summary.split("\n")[0]).toStartWith(`Cheapest plan: ₪${structured.data.total_ils}`);
    expect(summary).toContain(structured.data.stores[0].store.branch_name);
  });

  test("chain_price_index: the chains ranked as the API ranks them", async () => {
    const { summary, structured } = await call("chain_price_index", {});
    expect(structured).toEqual(await direct("/api/v1/chains/price-index/"));
    expect(summary.split("\n")[0]).toStartWith("Chain price index over a basket of");
    for (const entry of structured.data) expect(summary).toContain(`- ${entry.chain_name} (${entry.chain_id}):`);
  });

  test("compare_basket: quantity defaults to 1, as the schema says", async () => {
    const { structured } = await call("compare_basket", { items: [{ barcode: MILK }] });
    expect(structured.data.stores[0].items[0]).toMatchObject({ barcode: MILK, quantity: 1, line_total_ils: "6.50" });
  });

  test("price_history", async () => {
    const { summary, structured } = await call("price_history", { barcode: MILK, months: 12 });
    expect(structured).toEqual(await direct(`/api/v1/prices/${MILK}/history/?months=12`));
    expect(summary).toContain("- רמי לוי: ");
    expect(summary).toMatch(/- רמי לוי: ₪[\d.]+ \([\d-]+\) → ₪6\.50 \(2026-11-01\)/);
  });

  test("list_chains", async () => {
    const { summary, structured } = await call("list_chains", {});
    expect(structured).toEqual(await direct("/api/v1/chains/"));
    // The fixture's stores carry no file dates: the chains show as `no_data`, listed apart from the others.
    expect(summary).toContain("- שופרסל (Shufersal, chain_id shufersal): 2 stores, 3 products, no_data");
    expect(summary).toContain("- רמי לוי (Rami Levy, chain_id rami-levy): 1 store, 3 products, no_data");
    expect(summary).toMatch(/\nNo data yet: סופר קופיקס \(super-cofix\), /);
  });

  test("promotions", async () => {
    const { summary, structured } = await call("promotions", { chain_id: "rami-levy" });
    expect(structured).toEqual(await direct("/api/v1/promos/feed/?chain_id=rami-levy&include_club=true&limit=10"));
    expect(summary).toContain("- רמי לוי: במבה 3 ב-10 — 3 for ₪10.00");
    expect(summary).toContain("במבה אסם 80 גרם");
  });

  test("an API error for well-formed arguments is a tool error carrying the API's code and problem", async () => {
    const unknown = await client.callTool({ name: "get_prices", arguments: { barcode: "9999999999999" } });
    expect(unknown.isError).toBe(true);
    expect(texts(unknown)[0]).toStartWith("product_not_found: ");
    expect((unknown.structuredContent as any).error).toMatchObject({ status: 404, code: "product_not_found", type: "/docs/errors#product_not_found" });

    const chain = await client.callTool({ name: "get_prices", arguments: { barcode: MILK, chain_id: "no-such-chain" } });
    expect(chain.isError).toBe(true);
    expect((chain.structuredContent as any).error).toMatchObject({ code: "chain_not_found", param: "chain_id" });
    expect(texts(chain)[0]).toEndWith("(parameter chain_id)");
  });
});

describe("product identity: a chain's internal code goes with its chain_id", () => {
  test("a bare code two chains use is a tool error listing the candidates; with chain_id it is that chain's item", async () => {
    const ambiguous = await client.callTool({ name: "get_prices", arguments: { barcode: "4087" } });
    expect(ambiguous.isError).toBe(true);
    const problem = (ambiguous.structuredContent as any).error;
    expect(problem.code).toBe("ambiguous_product");
    expect(problem.candidates.map((c: any) => c.chain_id).sort()).toEqual(["rami-levy", "shufersal"]);
    const text = texts(ambiguous)[0]!;
    expect(text).toStartWith("ambiguous_product: ");
    expect(text).toContain("\n- עגבניה: barcode 4087, chain_id rami-levy");

    const { summary, structured } = await call("get_prices", { barcode: "4087", chain_id: "rami-levy" });
    expect(structured).toEqual(await direct("/api/v1/prices/?barcode=4087&chain_id=rami-levy"));
    expect(summary).toStartWith("עגבניה (4087)");
  });

  test("search gives the pair, and the basket takes it per item", async () => {
    const { structured: found } = await call("search_products", { query: "עגבניה" });
    const rami = found.data.find((p: any) => p.chain_id === "rami-levy");
    expect(rami).toMatchObject({ barcode: "4087", chain_id: "rami-levy" });
    const items = [{ barcode: "4087", chain_id: "rami-levy", quantity: 2 }];
    const { structured } = await call("compare_basket", { items });
    expect(structured).toEqual(await direct("/api/v1/basket/compare/", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ items }) }));
    expect(structured.data.stores[0]).toMatchObject({ chain_id: "rami-levy", total_ils: "11.80" });
  });
});

test("search results link images at the address the client used", async () => {
  const { structured } = await call("search_products", { query: "חלב" });
  expect(structured.data[0].image_url).toStartWith("http://localhost/");
});

test("the direct API is unaffected by /mcp routes (sanity)", async () => {
  expect((await get(ctx.app, "/api/v1/chains/", key)).status).toBe(200);
});
