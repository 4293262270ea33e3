import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openMemory } from "../../src/db/open.ts";
import { ensureDemoData, type EnsureDemoResult } from "../../src/demo/first-start.ts";
import { loadRegistry } from "../../src/registry.ts";
import { loadSettings } from "../../src/config.ts";
import { DataState } from "../../src/data/data-state.ts";
import { monthsBefore, priceHistory } from "../../src/modules/prices/history.ts";
import { chainSeries, type HistoryRow } from "../../src/pricing/price-series.ts";
import { formatIls, israelDate } from "../../src/lib/time.ts";
import { dataTables } from "../../src/pricing/data-tables.ts";

// End to end: a small demo of every chain, written and imported through the real import path.
const NOW = new Date("2026-11-22T08:00:00Z");
const registry = loadRegistry();
let dataDir: string;
let db: Database;
let first: EnsureDemoResult;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "mehir-demo-import-"));
  db = openMemory().prices;
  first = await ensureDemoData({ db, registry, dataDir, now: NOW, scale: 0.02, importer: "inline" });
}, 60_000);
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const one = <T>(sql: string, ...params: (string | number)[]) => db.query(sql).get(...params) as T;

describe("ensureDemoData on an empty database", () => {
  test("writes the files under <dataDir>/demo-files and imports every one of them", () => {
    expect(first.generated).toBe(true);
    const { demo, import: run } = first.report!;
    expect(readdirSync(join(dataDir, "demo-files")).length).toBe(demo.chains);
    expect(run.status).toBe("ok");
    expect(run.totals.files).toBe(demo.files);
    expect(run.totals.rejected).toBe(0);
    expect(run.totals.priceRows).toBe(demo.rows.prices);
    expect(one<{ value: string }>("SELECT value FROM meta WHERE key = 'source'").value).toBe("demo");
  });

  test("every active chain has its stores, in known cities and regions, Eilat included", () => {
    expect(one<{ n: number }>("SELECT count(*) AS n FROM stores").n).toBe(first.report!.demo.stores);
    const chainsWithStores = one<{ n: number }>("SELECT count(DISTINCT chain_id) AS n FROM stores").n;
    expect(chainsWithStores).toBe(registry.chains.filter((c) => c.active || !!c.inactive?.merged_into).length);
    const eilat = db.query("SELECT name, region FROM stores WHERE city = 'אילת'").all() as { name: string; region: string }[];
    expect(eilat.length).toBeGreaterThanOrEqual(2);
    for (const store of eilat) expect(store.region).toBe("south");
    const located = one<{ n: number }>("SELECT count(*) AS n FROM stores WHERE region IS NOT NULL").n;
    expect(located / first.report!.demo.stores).toBeGreaterThan(0.9);
  });

  test("products: shared barcodes across chains, chain-scoped weighed produce", () => {
    const shared = one<{ n: number }>(
      "SELECT count(*) AS n FROM (SELECT p.id FROM products p JOIN price_current pc ON pc.product_id = p.id JOIN stores s ON s.id = pc.store_id WHERE p.scope_chain_id = 0 GROUP BY p.id HAVING count(DISTINCT s.chain_id) >= 3)",
    ).n;
    expect(shared).toBeGreaterThan(10);
    const produce = one<{ n: number }>("SELECT count(*) AS n FROM products WHERE scope_chain_id <> 0 AND is_weighted = 1").n;
    expect(produce).toBeGreaterThan(20);
    const milk = one<{ name: string; size_amount: number; size_unit: string } | null>(
      "SELECT name, size_amount, size_unit FROM products WHERE name LIKE 'חלב תנובה 3% 1 ליטר'",
    );
    if (milk) expect([milk.size_amount, milk.size_unit]).toEqual([1000, "ml"]);
  });

  test("price history spans 24 months, change by change", () => {
    const span = one<{ first: string; last: string }>("SELECT min(valid_from) AS first, max(valid_from) AS last FROM price_history");
    expect(span.first <= "2024-11-22").toBe(true);
    expect(span.last.startsWith("2026-11-2")).toBe(true);
    // Some product in some store changed price many times across the period.
    const busiest = one<{ changes: number; first: string; last: string }>(
      "SELECT count(*) AS changes, min(valid_from) AS first, max(valid_from) AS last FROM price_history GROUP BY product_id, store_id ORDER BY changes DESC LIMIT 1",
    );
    expect(busiest.changes).toBeGreaterThanOrEqual(5);
    expect(new Date(busiest.last).getTime() - new Date(busiest.first).getTime()).toBeGreaterThan(540 * 86_400_000);
    // Change-only: far fewer history rows than rows loaded.
    const history = one<{ n: number }>("SELECT count(*) AS n FROM price_history").n;
    expect(history).toBeLessThan(first.report!.demo.rows.prices);
  });

  test("the history endpoint's service shows 24 months of chain prices for a widely sold product", () => {
    const { barcode } = one<{ barcode: string }>(
      `SELECT p.barcode FROM products p JOIN price_current pc ON pc.product_id = p.id JOIN stores s ON s.id = pc.store_id
        WHERE p.scope_chain_id = 0 GROUP BY p.id ORDER BY count(DISTINCT s.chain_id) DESC, p.barcode LIMIT 1`,
    );
    const data = new DataState(db);
    const deps = { db: { prices: db }, data, tables: dataTables(data), now: () => NOW };
    const { from, history } = priceHistory(deps, barcode, 24);
    expect(from).toBe("2024-11-22");
    expect(history.some((r) => r.date === from)).toBe(true);
    expect(new Set(history.map((r) => r.chain_id)).size).toBeGreaterThanOrEqual(3);
    expect(new Set(history.map((r) => r.date.slice(0, 7))).size).toBeGreaterThanOrEqual(6);
  });

  test("a window's history, read as the window's rows and each store's row in effect at its start, equals the series over every row kept", () => {
    const data = new DataState(db);
    const deps = { db: { prices: db }, data, tables: dataTables(data), now: () => NOW };
    // The products with the most changes (chain-internal items and GTINs alike; generic products read their members' rows).
    const products = db
      .query("SELECT p.id, p.barcode, c.slug AS chain FROM price_history ph JOIN products p ON p.id = ph.product_id LEFT JOIN chains c ON c.id = p.scope_chain_id WHERE p.scope_chain_id >= 0 GROUP BY p.id ORDER BY count(*) DESC LIMIT 40")
      .all() as { id: number; barcode: string; chain: string | null }[];
    expect(products.length).toBe(40);
    const every = db.query(
      `SELECT ph.store_id, ph.valid_from, ph.price, c.slug AS chain_slug, c.name AS chain_name, s.city
         FROM price_history ph JOIN stores s ON s.id = ph.store_id JOIN chains c ON c.id = s.chain_id
        WHERE ph.product_id = ? ORDER BY c.slug, ph.valid_from, ph.store_id`,
    );
    let records = 0;
    for (const product of products) {
      const rows = every.all(product.id) as HistoryRow[];
      for (const months of [1, 2, 6, 12, 24]) {
        const from = monthsBefore(israelDate(NOW), months);
        const expected: { chain_id: string; price_ils: string; date: string }[] = [];
        for (const slug of [...new Set(rows.map((r) => r.chain_slug))]) {
          for (const point of chainSeries(rows.filter((r) => r.chain_slug === slug), from)) expected.push({ chain_id: slug, price_ils: formatIls(point.price), date: point.date });
        }
        const { history } = priceHistory(deps, product.barcode, months, product.chain ?? undefined);
        expect(history.map((r) => ({ chain_id: r.chain_id, price_ils: r.price_ils, date: r.date }))).toEqual(expected);
        records += history.length;
      }
    }
    expect(records).toBeGreaterThan(200);
  });

  test("promotions of every real kind, most of today's running now", () => {
    const count = (where: string) => one<{ n: number }>(`SELECT count(*) AS n FROM promotions WHERE ${where}`).n;
    expect(count("min_qty = 1 AND discounted_price IS NOT NULL AND is_club_only = 0 AND is_coupon = 0 AND is_weighted = 0")).toBeGreaterThan(0);
    expect(count("min_qty >= 2 AND discounted_price IS NOT NULL AND is_club_only = 0")).toBeGreaterThan(0);
    expect(count("discount_rate > 0 AND discount_rate < 1")).toBeGreaterThan(0);
    expect(count("is_club_only = 1")).toBeGreaterThan(0);
    expect(count("is_coupon = 1")).toBeGreaterThan(0);
    expect(count("is_weighted = 1")).toBeGreaterThan(0);
    expect(one<{ n: number }>("SELECT count(*) AS n FROM promotion_items WHERE is_gift = 1").n).toBeGreaterThan(0);
    const now = "2026-11-22T10:00:00+02:00";
    const active = count(`starts_at <= '${now}' AND ends_at >= '${now}'`);
    const expired = count(`ends_at < '${now}'`);
    expect(active).toBeGreaterThan(0);
    expect(expired).toBeGreaterThan(0);
  });

  test("a later start does nothing", async () => {
    const again = await ensureDemoData({ db, registry, dataDir, now: NOW, scale: 0.02, importer: "inline" });
    expect(again).toEqual({ generated: false, skipped: "has-data" });
  });
});

test("live mode never generates demo data", async () => {
  const fresh = openMemory().prices;
  const result = await ensureDemoData({ db: fresh, registry, dataDir: join(tmpdir(), "never-written"), source: "live" });
  expect(result).toEqual({ generated: false, skipped: "live-source" });
  expect(fresh.query("SELECT count(*) AS n FROM stores").get()).toEqual({ n: 0 });
});
