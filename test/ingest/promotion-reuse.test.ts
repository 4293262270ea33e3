/**
 * Reused promotion ids (issue 47 part 2): Osher Ad publishes one promotion id for different
 * promotions at different stores and in different years. A promotion is its chain, its id and what
 * the file says of it (description, start): a file's item and store lists join only the promotion
 * that file describes. Files of the real shape (test/helpers/real-shape.ts), imported with
 * importPaths and read back through the API.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { importPaths } from "../../src/ingest/run/import.ts";
import { loadRegistry } from "../../src/registry.ts";
import { FIXED_NOW, get, testApp } from "../helpers/app.ts";
import { newKey } from "../helpers/keys.ts";
import { binaPriceXml, binaPromoXml, writeFiles } from "../helpers/real-shape.ts";

const OSHER_AD = "7290103152017";
// Valid GTIN-13s (check digit right), unknown to any other test.
const ITEMS = ["7290222222225", "7290222222232", "7290222222249", "7290222222256", "7290222222263", "7290222222270", "7290222222287", "7290222222294"];
const [A] = ITEMS as [string];

const root = mkdtempSync(join(tmpdir(), "mehir-promo-reuse-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const ctx = testApp();
const key = newKey(ctx.deps, "pro", "live").headers;
let dirs = 0;

async function importFiles(files: Record<string, string>) {
  const paths = writeFiles(join(root, `run${++dirs}`), files);
  const report = await importPaths({ db: ctx.db.prices, registry: loadRegistry(), paths, origin: "cli", source: "live", now: () => FIXED_NOW, parseWorkers: 0 });
  ctx.deps.data.refresh();
  return report;
}

const feed = async (query: string) =>
  ((await get(ctx.app, `/api/v1/promos/feed/?chain_id=osher-ad&${query}`, key)).body.data as any[]).filter((p) => p.promotion_id === "osher-ad:9001");
const shelf = ITEMS.map((code) => ({ code, price: "10.00" }));
// Store 10 runs id 9001 as a one-item promotion since 2025; store 20 runs the same id as another,
// eight-item promotion that started this month.
const OLD = { id: "9001", description: "לחמנית ביסים 12 ב-10", start: "2025-03-01", items: [A], discountedPrice: "8.00" };
const NEW = { id: "9001", description: "שוקולד 3 ב-20", start: "2026-11-10", items: ITEMS, discountedPrice: "9.00" };

const first = await importFiles({
  [`PriceFull${OSHER_AD}-010-202611220300.xml`]: binaPriceXml(OSHER_AD, "10", shelf),
  [`PriceFull${OSHER_AD}-020-202611220300.xml`]: binaPriceXml(OSHER_AD, "20", shelf),
  [`PromoFull${OSHER_AD}-010-202611220300.xml`]: binaPromoXml(OSHER_AD, "10", [OLD]),
  [`PromoFull${OSHER_AD}-020-202611220300.xml`]: binaPromoXml(OSHER_AD, "20", [NEW]),
});

describe("one promotion id, two promotions", () => {
  test("each is served with its own items, at its own store only", async () => {
    expect(first.status).toBe("ok");
    const both = await feed("");
    expect(both.map((p) => [p.description, p.store_count, p.item_count]).sort()).toEqual([
      ["לחמנית ביסים 12 ב-10", 1, 1],
      ["שוקולד 3 ב-20", 1, 8],
    ]);
    expect((await feed("store_id=10")).map((p) => [p.description, p.item_count])).toEqual([["לחמנית ביסים 12 ב-10", 1]]);
    expect((await feed("store_id=20")).map((p) => [p.description, p.item_count])).toEqual([["שוקולד 3 ב-20", 8]]);
  });

  test("prices at each store follow the promotion that store published", async () => {
    const prices = ((await get(ctx.app, `/api/v1/prices/?barcode=${ITEMS[1]}&granularity=store&chain_id=osher-ad`, key)).body.data.prices as any[]).map(
      (p) => [p.store.store_id, p.effective_price_ils],
    );
    // Item 2 is only in store 20's promotion: store 10 sells it at the shelf price.
    expect(prices.sort()).toEqual([
      ["10", "10.00"],
      ["20", "9.00"],
    ]);
  });

  test("a later file describing the id anew at a store replaces that store's promotion; the old one, left at no store, is gone", async () => {
    // A delta Promo file (not a full list) for store 10 now describes 9001 as store 20 does.
    const run = await importFiles({ [`Promo${OSHER_AD}-010-202611220400.xml`]: binaPromoXml(OSHER_AD, "10", [NEW]) });
    expect(run.status).toBe("ok");
    const both = await feed("");
    expect(both.map((p) => [p.description, p.store_count, p.item_count])).toEqual([["שוקולד 3 ב-20", 2, 8]]);
    expect(ctx.db.prices.query("SELECT count(*) AS n FROM promotions WHERE promotion_code = '9001'").get()).toEqual({ n: 1 });
  });
});
