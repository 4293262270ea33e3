import { beforeAll, afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testApp, get } from "../helpers/app.ts";
import { newKey } from "../helpers/keys.ts";
import { openDataDir } from "../../src/db/open.ts";
import { demoDataDir } from "../helpers/demo-data-dir.ts";
import { loadSettings } from "../../src/config.ts";
import { readFileSync } from "node:fs";
import { resolveProduct } from "../../src/identity/resolve.ts";

// The issue's "done when", on the embedded demo dataset as `npm start` serves it (scale 1):
// every item of the first page of a search for these words, followed with its barcode and
// chain_id, answers 200 with prices; the first item for עגבניות is the cross-chain generic
// product, priced per kilogram at every chain that sells tomatoes.
// The demo is the scale-1 one shared with the response-examples test (test/helpers/demo-data-dir.ts:
// generated once, at the examples' clock, two hours before this app's).
let ctx: ReturnType<typeof testApp>;
let key: Record<string, string>;
let dataDir: string;

beforeAll(async () => {
  dataDir = await demoDataDir(new Date("2026-11-22T08:00:00Z"));
  // Many requests from one key: a rate limit high enough not to be what the test measures.
  ctx = testApp({ settings: loadSettings({ MEHIR_RATE_PRO: "1000000" }), db: openDataDir(dataDir) });
  await ctx.deps.search!.rebuild(ctx.db.prices);
  key = newKey(ctx.deps, "pro").headers;
}, 900_000);
afterAll(() => {
  ctx?.close();
  rmSync(dataDir, { recursive: true, force: true });
}, 120_000);

const call = (path: string) => get(ctx.app, path, key);
const search = (q: string) => call(`/api/v1/product-search/?q=${encodeURIComponent(q)}`);
const follow = (item: { barcode: string; chain_id: string | null }) =>
  `barcode=${encodeURIComponent(item.barcode)}${item.chain_id ? `&chain_id=${item.chain_id}` : ""}`;

describe("the identity rule on the embedded demo data", () => {
  test.each(["עגבניות", "מלפפון", "בננה", "לחם", "חלב"])("every first-page item of a search for %p answers /prices/ with prices", async (q) => {
    const { status, body } = await search(q);
    expect(status).toBe(200);
    expect(body.data.length).toBeGreaterThan(0);
    for (const item of body.data) {
      const prices = await call(`/api/v1/prices/?${follow(item)}`);
      expect({ item: item.barcode, chain: item.chain_id, status: prices.status }).toEqual({ item: item.barcode, chain: item.chain_id, status: 200 });
      expect(prices.body.data.prices.length).toBeGreaterThan(0);
      expect(prices.body.data.name).toBe(item.name);
    }
  });

  test("the first item for עגבניות is the generic product, priced per kilogram at every chain selling tomatoes", async () => {
    const { body } = await search("עגבניות");
    const first = body.data[0];
    expect(first).toMatchObject({ barcode: "g-tomatoes", kind: "generic", chain_id: null, sold_by: "kg", name: "עגבניות" });
    // Every chain that sells loose tomatoes under any of its names (not cherry tomatoes, paste or canned).
    const sellers = (
      ctx.db.prices
        .query(
          `SELECT DISTINCT c.slug FROM products p JOIN chain_products cp ON cp.product_id = p.id JOIN chains c ON c.id = cp.chain_id
            WHERE p.scope_chain_id > 0 AND p.is_weighted = 1 AND p.name LIKE 'עגבני%' AND p.name NOT LIKE '%שרי%' ORDER BY c.slug`,
        )
        .all() as { slug: string }[]
    ).map((r) => r.slug);
    expect(sellers.length).toBeGreaterThanOrEqual(3);
    const { status, body: prices } = await call("/api/v1/prices/?barcode=g-tomatoes");
    expect(status).toBe(200);
    expect(prices.data).toMatchObject({ barcode: "g-tomatoes", unit_qty: "קילוגרם", size: 1000, unit: "g" });
    expect(prices.data.prices.map((p: any) => p.chain_id).sort()).toEqual(sellers);
    for (const entry of prices.data.prices) {
      // Each chain's own item is listed, and the per-kg price is that item's chain price.
      expect(entry.items.length).toBeGreaterThan(0);
      const own = await call(`/api/v1/prices/?${follow(entry.items[0])}`);
      const ownEntry = own.body.data.prices.find((p: any) => p.chain_id === entry.chain_id);
      if (entry.items.length === 1) expect(entry.price_ils).toBe(ownEntry.price_ils);
      expect(entry.measure).toBe("100g");
    }
    // The generic id works wherever a barcode does.
    expect((await call("/api/v1/prices/g-tomatoes/history/?months=3")).status).toBe(200);
    const basket = await ctx.app.handle(
      new Request("http://localhost/api/v1/basket/compare/", {
        method: "POST",
        headers: { ...key, "content-type": "application/json" },
        body: JSON.stringify({ items: [{ barcode: "g-tomatoes", quantity: 2 }] }),
      }),
    );
    expect(basket.status).toBe(200);
    expect(((await basket.json()) as any).data.stores.length).toBe(sellers.length);
  });

  test("the identifiers in the OpenAPI document, the README and the guides exist in the embedded data and have prices", async () => {
    const { docs, answers } = withoutResponseExamples((await get(ctx.app, "/docs/json")).body);
    const readme = ["../../README.md", "../../docs/api.md", "../../docs/operations.md", "../../docs/mcp.md"].map((f) => readFileSync(join(import.meta.dir, f), "utf8")).join("\n");
    const named = new Map<string, { barcode: string; chain_id?: string }>();
    for (const text of [docs, readme]) {
      for (const m of text.matchAll(/barcode=(\d{6,20}|\d{1,5}|g-[a-z0-9-]+)(?:&chain_id=([a-z0-9-]+))?/g)) named.set(m[0], { barcode: m[1]!, chain_id: m[2] });
      for (const m of text.matchAll(/\\?"barcode\\?":\s*\\?"(\d{1,20}|g-[a-z0-9-]+)\\?"(?:,\s*\\?"chain_id\\?":\s*\\?"([a-z0-9-]+)\\?")?/g)) named.set(m[0], { barcode: m[1]!, chain_id: m[2] });
    }
    expect(named.size).toBeGreaterThanOrEqual(4);
    // The response examples are answers: each product in them, with the chain it is listed under.
    // A batch item does not repeat the chain its code was asked with: a bare chain-scoped code
    // is known when /prices names it ambiguous, with candidates.
    const inAnswers = new Map<string, { barcode: string; chain_id?: string }>();
    for (const answer of answers) for (const id of productsIn(answer, undefined)) inAnswers.set(JSON.stringify(id), id);
    expect(inAnswers.size).toBeGreaterThan(10);
    for (const [where, id] of inAnswers) {
      const prices = await call(`/api/v1/prices/?barcode=${id.barcode}${id.chain_id ? `&chain_id=${id.chain_id}` : ""}`);
      const known = prices.status === 200 || (prices.body.code === "ambiguous_product" && prices.body.candidates.length > 0);
      expect({ where, status: prices.status, known }).toEqual({ where, status: prices.status, known: true });
    }
    for (const [where, id] of named) {
      const prices = await call(`/api/v1/prices/?barcode=${id.barcode}${id.chain_id ? `&chain_id=${id.chain_id}` : ""}`);
      expect({ where, status: prices.status }).toEqual({ where, status: 200 });
    }
    // Every GET operation answers its documented parameter examples, given together.
    const doc = (await get(ctx.app, "/docs/json")).body as { paths: Record<string, Record<string, { parameters?: { name: string; in: string; example?: string }[] }>> };
    let tried = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      const params = ops.get?.parameters ?? [];
      // Exports and alerts have no examples the demo server holds (no export written, no alert made);
      // the widget endpoint takes a publishable key (the contract test calls it).
      if (params.length === 0 || path.includes("/exports") || path.includes("/alerts") || path.includes("/widget")) continue;
      let url = path;
      const query: string[] = [];
      for (const p of params) {
        if (p.example === undefined || p.name === "key") continue;
        if (p.in === "path") url = url.replace(`{${p.name}}`, encodeURIComponent(p.example));
        else if (p.in === "query") query.push(`${p.name}=${encodeURIComponent(p.example)}`);
      }
      if (url.includes("{")) continue;
      const answer = await call(`${url}${query.length ? `?${query.join("&")}` : ""}`);
      expect({ path, query, status: answer.status }).toEqual({ path, query, status: 200 });
      tried++;
    }
    expect(tried).toBeGreaterThanOrEqual(6);
    // The docs' internal-code example is ambiguous without its chain, as they say.
    expect(resolveProduct(ctx.db.prices, { barcode: "4087" })).toMatchObject({ ok: false, error: "ambiguous_product" });
  });
});

/** The document as text without its success answers' examples, and those examples. */
function withoutResponseExamples(doc: any): { docs: string; answers: unknown[] } {
  const answers: unknown[] = [];
  for (const ops of Object.values(doc.paths) as any[]) {
    for (const op of Object.values(ops) as any[]) {
      for (const status of ["200", "201"]) {
        const json = op.responses?.[status]?.content?.["application/json"];
        if (json?.example !== undefined) {
          answers.push(json.example);
          delete json.example;
        }
      }
    }
  }
  return { docs: JSON.stringify(doc), answers };
}

/** Every `barcode` in an answer, with the `chain_id` of its object or of the nearest object around it that has one. */
function productsIn(value: unknown, chainId: string | undefined): { barcode: string; chain_id?: string }[] {
  if (Array.isArray(value)) return value.flatMap((v) => productsIn(v, chainId));
  if (value === null || typeof value !== "object") return [];
  const object = value as Record<string, unknown>;
  const chain = "chain_id" in object ? (typeof object.chain_id === "string" ? object.chain_id : undefined) : chainId;
  const own = typeof object.barcode === "string" ? [{ barcode: object.barcode, ...(chain ? { chain_id: chain } : {}) }] : [];
  return [...own, ...Object.values(object).flatMap((v) => productsIn(v, chain))];
}
