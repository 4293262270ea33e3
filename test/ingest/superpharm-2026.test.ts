/**
 * Super-Pharm's 2026 layout (issue 47; portals-2026.md): it moved from `OrderXml/…/Details/Line`
 * to `Root/Items/Item`, grouped promotions `Root/Promotions/Promotion/Groups/Group/PromotionItems/
 * PromotionItem`, and `Root/SubChains/…/Store`, with 5-part file names. Fixtures written for the
 * repository in that shape (test/fixtures/ingest/*7290172900007-000-*2026*), imported end to end
 * and read back through the API.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { importPaths } from "../../src/ingest/run/import.ts";
import { loadRegistry } from "../../src/registry.ts";
import { FIXED_NOW, get, testApp } from "../helpers/app.ts";
import { newKey } from "../helpers/keys.ts";

const FIXTURES = join(import.meta.dir, "../fixtures/ingest");
const FILES = [
  "Stores7290172900007-000-20260824-070016.xml",
  "PriceFull7290172900007-000-043-20260910-070110.xml",
  "PromoFull7290172900007-000-043-20260910-070112.xml",
];

const ctx = testApp();
const key = newKey(ctx.deps, "pro", "live").headers;
const report = await importPaths({
  db: ctx.db.prices,
  registry: loadRegistry(),
  paths: FILES.map((f) => join(FIXTURES, f)),
  origin: "cli",
  source: "live",
  now: () => FIXED_NOW,
  parseWorkers: 0,
});
ctx.deps.data.refresh();

describe("Super-Pharm 2026 files", () => {
  test("each file is read as Super-Pharm's, with the time and store its name gives", () => {
    expect(report.files.map((f) => [f.fileName, f.status, f.type, f.chainSlug, f.storeCode, f.fileTime, f.rows])).toEqual([
      [FILES[0], "ok", "stores", "super-pharm", null, "2026-08-24T07:00:16+03:00", 3],
      [FILES[1], "ok", "pricefull", "super-pharm", "43", "2026-09-10T07:01:10+03:00", 3],
      [FILES[2], "ok", "promofull", "super-pharm", "43", "2026-09-10T07:01:12+03:00", 2],
    ]);
  });

  test("stores: names, cities and types from Root/SubChains", async () => {
    const stores = (await get(ctx.app, "/api/v1/stores/?chain_id=super-pharm", key)).body.data as any[];
    expect(stores.map((s) => [s.store_id, s.branch_name, s.city, s.store_type])).toEqual([
      ["43", "סופר-פארם דיזנגוף סנטר", "תל אביב-יפו", "physical"],
      ["253", "סופר-פארם קניון עופר גרנד", "באר שבע", "physical"],
      ["900", "סופר-פארם אונליין", null, "online"],
    ]);
  });

  test("prices and measures from Root/Items/Item", async () => {
    const body = (await get(ctx.app, "/api/v1/prices/?barcode=7290108350043&granularity=store", key)).body;
    expect(body.data.name).toBe('שמפו לשיער יבש 700 מ"ל');
    expect(body.data.prices.map((p: any) => [p.store.store_id, p.price_ils, p.price_per_measure_ils, p.measure])).toEqual([["43", "19.90", "2.84", "100ml"]]);
  });

  test("grouped promotions: items from Groups/Group/PromotionItems, club-only flagged", async () => {
    const feed = (await get(ctx.app, "/api/v1/promos/feed/?chain_id=super-pharm", key)).body.data as any[];
    const byId = Object.fromEntries(feed.map((p) => [p.promotion_id, p]));
    expect(byId["super-pharm:7710021"]).toMatchObject({
      description: "לייף 1+1 על טיפוח",
      is_club_only: false,
      min_qty: 2,
      discounted_price_ils: "24.90",
      item_count: 2,
      store_count: 1,
    });
    expect(byId["super-pharm:7710021"].items.map((i: any) => i.barcode)).toEqual(["7290108350036", "7290108350043"]);
    expect(byId["super-pharm:7710088"]).toMatchObject({ is_club_only: true, item_count: 1, discounted_price_ils: "9.90" });
  });
});
