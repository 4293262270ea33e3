/**
 * Imports every real published file in ../shared/samples/real/ (skipped when the folder is
 * absent) into SQLite in one run, and checks per file what the run reports and what the
 * database holds: store, price and promotion counts and field values. Expected figures were
 * read off the XML by hand (grep / a throwaway script), not computed with this code.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { openMemory } from "../../src/db/open.ts";
import { loadRegistry } from "../../src/registry.ts";
import { importPaths } from "../../src/ingest/run/import.ts";
import type { ImportReport } from "../../src/ingest/run/report.ts";
import { REAL_SAMPLES, realSamplesFor } from "../helpers/real-samples.ts";

const DIR = REAL_SAMPLES;
const present = realSamplesFor("conformance: every real file imported");

const RAMI_LEVY = "7290058140886";
const SUPER_COFIX = "7291056200008";
const MAAYAN = "7290058159628";
const KING_STORE = "7290058108879";
const OSHER_AD = "7290103152017";
const SHUFERSAL = "7290027600007";

describe.skipIf(!present)("conformance: every real file imported into SQLite", () => {
  let db: Database;
  let report: ImportReport;
  const one = (sql: string, ...params: (string | number)[]) => db.query(sql).get(...params);
  const n = (sql: string, ...params: (string | number)[]) => (db.query(sql).get(...params) as { n: number }).n;

  beforeAll(async () => {
    db = openMemory().prices;
    // The samples' promotions ended years ago: read back as imported, before any pruning
    // (retention is tested in test/db/retention.test.ts).
    report = await importPaths({ db, registry: loadRegistry(), paths: [DIR], origin: "cli", source: "live", now: () => new Date("2026-11-23T10:00:00Z"), prune: false });
  });

  test("the run report: every price file ok with its type, chain, store and row count; the README rejected", () => {
    const rows = Object.fromEntries(report.files.map((f) => [f.fileName, [f.status, f.type, f.chainSlug, f.storeCode, f.rows]]));
    expect(rows).toEqual({
      "Stores7290058140886-202211012005.xml": ["ok", "stores", "rami-levy", null, 58],
      "Stores7290492000005-202211020200.xml": ["ok", "stores", "dor-alon", null, 185],
      "StoresFull7290172900007--202211020200": ["ok", "stores", "super-pharm", null, 281],
      "Stores7290027600007-000-202211020201": ["ok", "stores", "shufersal", null, 405],
      "StoresFull7290696200003-000-202211020600-000.xml": ["ok", "stores", "victory", null, 65],
      "Stores0000072906390-202211021530.xml": ["ok", "stores", "stop-market", null, 10],
      "PriceFull7291056200008-299-202211020010": ["ok", "pricefull", "super-cofix", "299", 2243],
      "PriceFull7290058159628-001-202211021214": ["ok", "pricefull", "maayan-2000", "1", 1568],
      "Price7290725900003-9032-202410021600": ["ok", "price", "carrefour", "9032", 0],
      "NULLPrice7290058108879-028-202410261441.xml": ["ok", "price", "king-store", "28", 238],
      "PromoFull7290103152017-010-201506030830.xml": ["ok", "promofull", "osher-ad", "10", 303],
      "PromoFull7290172900007-350-202410030634.xml": ["ok", "promofull", "super-pharm", "350", 0],
      "NULLPromo7290700100008-001-202411021400.xml": ["ok", "promo", "hazi-hinam", "1", 0],
      "PromoFull7290058140886-013-202512120010": ["ok", "promofull", "rami-levy", "13", 1],
      "PromoFull7290058249350-000-038-20260217-000027": ["ok", "promofull", "wolt-market", "38", 0],
      // No type in the name: read as the delta (it never removes anything).
      "shufersal-2026-newformat-promofull.TRIMMED-BY-REPO-AUTHOR.xml.gz": ["ok", "promo", "shufersal", "413", 2],
      "SOURCES.md": ["rejected", null, null, null, 0],
    });
    expect(report.files.find((f) => f.fileName === "SOURCES.md")!.reason).toContain("not an XML document");
    expect(report).toMatchObject({ status: "partial", dataVersion: 1 });
    expect(report.totals).toMatchObject({ files: 17, ok: 16, rejected: 1, imported: 16 });
    expect(n("SELECT count(*) AS n FROM import_files WHERE status = 'ok'")).toBe(16);
  });

  test("stores per published chain code (Victory's second code, Stop Market's truncated one)", () => {
    expect(db.query("SELECT chain_code, count(*) AS n FROM stores WHERE name IS NOT NULL GROUP BY chain_code ORDER BY chain_code").all()).toEqual([
      { chain_code: SHUFERSAL, n: 405 },
      { chain_code: "7290058103393", n: 1 },
      { chain_code: RAMI_LEVY, n: 58 },
      { chain_code: "7290172900007", n: 281 },
      { chain_code: "7290492000005", n: 185 },
      { chain_code: "7290639000004", n: 10 },
      { chain_code: "7290696200003", n: 64 },
    ]);
    // Price and promotion files of stores no Stores file described add bare rows.
    expect(db.query("SELECT chain_code, store_code FROM stores WHERE name IS NULL ORDER BY chain_code, store_code").all()).toEqual([
      { chain_code: KING_STORE, store_code: "28" },
      { chain_code: MAAYAN, store_code: "1" },
      { chain_code: "7290058249350", store_code: "38" },
      { chain_code: OSHER_AD, store_code: "10" },
      { chain_code: "7290172900007", store_code: "350" },
      { chain_code: "7290700100008", store_code: "1" },
      { chain_code: "7290725900003", store_code: "9032" },
      { chain_code: SUPER_COFIX, store_code: "299" },
    ]);
  });

  test("store field values", () => {
    const store = (chain: string, code: string) =>
      one("SELECT name, address, zip, store_type, sub_chain_code FROM stores WHERE chain_code = ? AND store_code = ?", chain, code);
    expect(store(RAMI_LEVY, "203")).toEqual({ name: "אילת", address: "הזגג 11", zip: "8850713", store_type: 1, sub_chain_code: "1" });
    expect(store(RAMI_LEVY, "64")).toMatchObject({ name: "אור עקיבא", zip: null }); // ZipCode `unknown`
    expect(store("7290492000005", "645")).toMatchObject({ name: "בית קשת", address: "צומת גולני דרומה-בית ספר כדורי" }); // `&#x0D;` dropped
    expect(n("SELECT count(*) AS n FROM stores WHERE chain_code = '7290492000005' AND store_type = 2")).toBe(7);
    expect(store(SHUFERSAL, "1")).toEqual({ name: 'שלי ת"א- בן יהודה', address: "בן יהודה 79", zip: "6343504", store_type: 1, sub_chain_code: "1" });
    expect(store("7290172900007", "4")).toEqual({ name: "סופר-פארם משחררים", address: "רח' המשחררים 70", zip: null, store_type: 1, sub_chain_code: "100" });
    expect(store("7290058103393", "87")).toMatchObject({ name: "צמח", address: "צומת צמח מול כנרת", zip: "1510501" });
    expect(store("7290639000004", "1")).toMatchObject({ name: "בית חירות", address: "קניון אם הדרך", zip: "40291" });
    const subChains = db.query("SELECT sc.code, sc.name FROM sub_chains sc JOIN chains c ON c.id = sc.chain_id WHERE c.slug = 'shufersal' ORDER BY CAST(sc.code AS INTEGER)").all();
    expect(subChains).toHaveLength(10);
    expect(subChains).toContainEqual({ code: "2", name: "שופרסל דיל" });
    expect(subChains).toContainEqual({ code: "18", name: null });
  });

  test("current prices per store; repeated items count once, the row updated last (ties: the last listed)", () => {
    const perStore = db
      // Published rows only: generic products (scope -1, loose produce grouped across chains) have rows derived from them.
      .query(
        "SELECT s.chain_code, s.store_code, count(*) AS n FROM price_current pc JOIN stores s ON s.id = pc.store_id JOIN products p ON p.id = pc.product_id WHERE p.scope_chain_id >= 0 GROUP BY s.id ORDER BY s.chain_code",
      )
      .all();
    // Super Cofix lists 2,243 items, 22 of them twice (3 with two different prices).
    expect(perStore).toEqual([
      { chain_code: KING_STORE, store_code: "28", n: 238 },
      { chain_code: MAAYAN, store_code: "1", n: 1568 },
      { chain_code: SUPER_COFIX, store_code: "299", n: 2221 },
    ]);
    const price = (chain: string, store: string, code: string) =>
      (one(
        `SELECT pc.price AS price FROM price_current pc JOIN stores s ON s.id = pc.store_id JOIN products p ON p.id = pc.product_id
          WHERE s.chain_code = ? AND s.store_code = ? AND p.barcode_key = ?`,
        chain, store, code,
      ) as { price: number } | null)?.price;
    // 30.90 (updated 2022-01-09) then 29.90 (updated 2020-09-15): the 2022 update counts — the same
    // fillet is listed at 30.90, updated 2022-01-09, under 7290004048518 below.
    expect(price(SUPER_COFIX, "299", "7290002657866")).toBe(3090);
    expect(price(SUPER_COFIX, "299", "7290000051710")).toBe(1340); // 13.90 (2020) then 13.40 (2022)
    expect(price(SUPER_COFIX, "299", "7290004048518")).toBe(3090); // 29.90 (2020) then 30.90 (2022)
    // One history row per current price (a first import), none for the repeats.
    expect(n("SELECT count(*) AS n FROM price_history")).toBe(238 + 1568 + 2221);
    expect(n("SELECT count(*) AS n FROM price_history WHERE price IS NULL")).toBe(0);
  });

  test("price and product field values", () => {
    const row = (chain: string, store: string, code: string) =>
      one(
        `SELECT p.scope_chain_id = 0 AS shared, p.name, p.manufacturer, p.size_amount, p.size_unit, p.qty_in_package, p.is_weighted,
                pc.price, pc.updated_at, pc.allow_discount
           FROM price_current pc JOIN stores s ON s.id = pc.store_id JOIN products p ON p.id = pc.product_id
          WHERE s.chain_code = ? AND s.store_code = ? AND p.barcode_key = ?`,
        chain, store, code,
      );
    // Cerberus: UnitQty גרמים × 200.00 (not the 25 in the name), QtyInPackage לא ידוע, ManufacturerName לא ידוע.
    expect(row(SUPER_COFIX, "299", "7290114311069")).toEqual({
      shared: 1, name: "מולר אקטיב 25 גרם חל", manufacturer: null, size_amount: 200, size_unit: "g", qty_in_package: null, is_weighted: 0,
      price: 590, updated_at: "2022-02-10T15:38:56+02:00", allow_discount: 1,
    });
    // Bina: ItemNm, UnitQty/UnitOfMeasure 00000 → the size comes from the name; AllowDiscount 0.
    expect(row(MAAYAN, "1", "7290000040066")).toEqual({
      shared: 1, name: "יופלה דובדבן 3% 150 גרם", manufacturer: null, size_amount: 150, size_unit: "g", qty_in_package: null, is_weighted: 0,
      price: 520, updated_at: "2022-11-02T10:23:00+02:00", allow_discount: 0,
    });
    // A short chain-internal code stays with its chain.
    expect(row(MAAYAN, "1", "6")).toMatchObject({ shared: 0, name: "לחמניה אנג'ל שמיניה/באגט/שומשום 85ג'", size_amount: 85, size_unit: "g", price: 360 });
    expect(one("SELECT c.slug FROM products p JOIN chains c ON c.id = p.scope_chain_id WHERE p.barcode_key = '6'")).toEqual({ slug: "maayan-2000" });
    // The real files' loose produce of two chains is compared across them (generic products, issue 18).
    expect(n("SELECT count(*) AS n FROM products WHERE scope_chain_id = -1")).toBeGreaterThan(0);
    // King Store: a NULL-prefixed delta with rows; `100 גרם ` padded; QtyInPackage 24.0000.
    expect(row(KING_STORE, "28", "7290000040042")).toMatchObject({ shared: 1, size_amount: 150, size_unit: "g", qty_in_package: 24, price: 560 });
    expect(row(KING_STORE, "28", "55350")).toMatchObject({ shared: 0, is_weighted: 1, size_amount: 1000, size_unit: "g", price: 5114 });
    expect(n("SELECT count(*) AS n FROM products p JOIN price_current pc ON pc.product_id = p.id JOIN stores s ON s.id = pc.store_id WHERE s.chain_code = ? AND p.is_weighted = 1 AND p.scope_chain_id >= 0", KING_STORE)).toBe(27);
    expect(n("SELECT count(*) AS n FROM products p JOIN price_current pc ON pc.product_id = p.id JOIN stores s ON s.id = pc.store_id WHERE s.chain_code = ? AND p.is_weighted = 1", MAAYAN)).toBe(11);
  });

  test("promotions: counts per chain, links to their store, field values", () => {
    expect(db.query("SELECT chain_code, count(*) AS n FROM promotions GROUP BY chain_code ORDER BY chain_code").all()).toEqual([
      { chain_code: SHUFERSAL, n: 2 },
      { chain_code: RAMI_LEVY, n: 1 },
      { chain_code: OSHER_AD, n: 303 },
    ]);
    expect(n("SELECT count(*) AS n FROM promotion_stores ps JOIN stores s ON s.id = ps.store_id WHERE s.chain_code = ? AND s.store_code = '10'", OSHER_AD)).toBe(303);
    expect(n("SELECT count(*) AS n FROM promotions WHERE is_club_only = 1")).toBe(0); // every ClubId is 0
    const promo = (chain: string, code: string) =>
      one(
        `SELECT description, starts_at, ends_at, min_qty, max_qty, discounted_price, discount_rate, min_purchase_amount, is_coupon,
                is_club_only, club_ids, reward_type, (SELECT count(*) FROM promotion_stores WHERE promotion_id = promotions.id) AS stores
           FROM promotions WHERE chain_code = ? AND promotion_code = ?`,
        chain, code,
      );
    expect(promo(RAMI_LEVY, "1353484")).toEqual({
      description: "פטרוזליה/כוסברה/נענע/שמיר 3ב8.90", starts_at: "2025-01-01T00:00:00+02:00", ends_at: "2026-01-03T23:59:00+02:00",
      min_qty: 3, max_qty: null, discounted_price: 890, discount_rate: null, min_purchase_amount: null, is_coupon: 0, is_club_only: 0,
      club_ids: '["0"]', reward_type: 1, stores: 1,
    });
    expect(promo(OSHER_AD, "11708")).toMatchObject({ min_qty: 12, discounted_price: 1000, starts_at: "2010-05-20T00:00:00+03:00", ends_at: "2020-12-31T23:59:00+02:00" });
    expect(promo(OSHER_AD, "125941")).toMatchObject({ min_qty: 4, discounted_price: 900, ends_at: "2015-06-27T23:59:00+03:00" });
    expect(promo(SHUFERSAL, "2930148")).toMatchObject({ is_coupon: 1, is_club_only: 0, min_purchase_amount: 20000, club_ids: '["0"]', starts_at: "2021-10-19T00:00:00+03:00", stores: 1 });
    expect(promo(SHUFERSAL, "2944828")).toMatchObject({ is_coupon: 1, min_purchase_amount: 10000 });
  });

  test("promotion items link only to products their chain publishes (no cross-chain merge)", () => {
    // Rami Levy's 4 produce codes and Shufersal's 3 items have no price file here; Osher Ad's 2015
    // promotions mark every barcode ItemType 0 (chain-internal): of its items only one is
    // ItemType 1 and a product of another chain's file (7290000572208, Super Cofix).
    expect(db.query("SELECT pr.chain_code, pr.promotion_code, p.barcode_key FROM promotion_items pi JOIN promotions pr ON pr.id = pi.promotion_id JOIN products p ON p.id = pi.product_id").all()).toEqual([
      { chain_code: OSHER_AD, promotion_code: "118211", barcode_key: "7290000572208" },
    ]);
  });
});
