import { describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/db/open.ts";
import { PRICE_MIGRATIONS } from "../../src/db/price-schema.ts";
import { loadRegistry } from "../../src/registry.ts";
import { importPaths } from "../../src/ingest/run/import.ts";
import { writeDay } from "../../bench/lib/price-files.ts";
import { testApp, commitData, get, FIXED_NOW } from "../helpers/app.ts";
import { Fixture } from "../helpers/fixture.ts";
import { newKey } from "../helpers/keys.ts";
import { loadSettings } from "../../src/config.ts";
import { pruneDatabase, pruneHistory, HISTORY_PASS_EVERY_DAYS, ENDED_PROMOTION_DAYS, RUN_DAYS, RUN_FILE_DAYS } from "../../src/db/retention.ts";

// FIXED_NOW is 2026-11-22 (Israel): 25 months keep from 2024-10-22, 6 months from 2026-05-22.

/** A seeded pseudo-random sequence (tests are deterministic). */
function random(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 1_103_515_245 + 12_345) & 0x7fffffff) / 0x7fffffff);
}

/** Three chains' stores with four years of price changes (some "no longer sold"), as imports leave them. */
function withHistory(historyMonths: number) {
  const ctx = testApp({ settings: loadSettings({ MEHIR_IMPORT_PRIORITY: "normal", MEHIR_HISTORY_MONTHS: String(historyMonths) }), now: () => FIXED_NOW });
  const f = new Fixture(ctx.db.prices, ctx.chainIds);
  const stores = [
    ...["1", "2", "3", "4"].map((code) => f.store("shufersal", code)),
    ...["1", "2"].map((code) => f.store("rami-levy", code)),
    f.store("victory", "7"),
  ];
  const products = ["7290000066318", "7290000000015", "7290000000022"].map((barcode, i) => f.product(barcode, `מוצר ${i}`));
  const next = random(42);
  for (const product of products) {
    for (const store of stores) {
      let day = Date.UTC(2022, 10, 1) + Math.floor(next() * 40) * 86_400_000;
      while (day < FIXED_NOW.getTime()) {
        const iso = new Date(day).toISOString().slice(0, 10);
        const price = next() < 0.08 ? null : 500 + Math.floor(next() * 6) * 10;
        f.history(store, product, `${iso}T06:00:00+02:00`, price);
        day += (3 + Math.floor(next() * 60)) * 86_400_000;
      }
      f.price(store, product, 550);
    }
  }
  commitData(ctx.deps);
  return { ctx, products, key: newKey(ctx.deps, "pro").headers };
}

async function histories(ctx: ReturnType<typeof testApp>, key: Record<string, string>, months: number[]) {
  const out: Record<string, unknown> = {};
  for (const barcode of ["7290000066318", "7290000000015", "7290000000022"]) {
    for (const m of months) {
      const { status, body } = await get(ctx.app, `/api/v1/prices/${barcode}/history/?months=${m}`, key);
      expect(status).toBe(200);
      out[`${barcode} ${m}`] = { history: body.data.history, from: body.meta.from };
    }
  }
  return out;
}

const rowsBefore = (db: Database, day: string) =>
  db.query("SELECT product_id, store_id, count(*) AS n, sum(price IS NULL) AS nulls FROM price_history WHERE valid_from < ? GROUP BY 1, 2").all(day) as {
    n: number;
    nulls: number;
  }[];

describe("history retention", () => {
  test("pruning at 25 months keeps every served window's answers (1–24 months) and one row in effect per product and store", async () => {
    const { ctx, key } = withHistory(25);
    const months = Array.from({ length: 24 }, (_, i) => i + 1);
    const before = await histories(ctx, key, months);
    const total = (ctx.db.prices.query("SELECT count(*) AS n FROM price_history").get() as { n: number }).n;
    expect(rowsBefore(ctx.db.prices, "2024-10-22").some((r) => r.n > 1)).toBe(true);

    const pruned = pruneDatabase(ctx.db.prices, { historyMonths: 25 }, FIXED_NOW);
    expect(pruned.historyFrom).toBe("2024-10-22");
    expect(pruned.historyRows).toBeGreaterThan(0);
    const after = (ctx.db.prices.query("SELECT count(*) AS n FROM price_history").get() as { n: number }).n;
    expect(after).toBe(total - pruned.historyRows);
    for (const pair of rowsBefore(ctx.db.prices, "2024-10-22")) {
      expect(pair.n).toBe(1);
      expect(pair.nulls).toBe(0);
    }
    commitData(ctx.deps);
    expect(await histories(ctx, key, months)).toEqual(before);

    // A later run the same day, or within the week, walks nothing; a week later it walks again.
    expect(pruneDatabase(ctx.db.prices, { historyMonths: 25 }, FIXED_NOW).historyFrom).toBeNull();
    expect(pruneDatabase(ctx.db.prices, { historyMonths: 25 }, new Date(FIXED_NOW.getTime() + 6 * 86_400_000)).historyFrom).toBeNull();
    expect(pruneDatabase(ctx.db.prices, { historyMonths: 25 }, new Date(FIXED_NOW.getTime() + HISTORY_PASS_EVERY_DAYS * 86_400_000)).historyFrom).toBe("2024-10-29");
    ctx.close();
  });

  test("a shorter setting prunes to it, caps `months` at it (400 above, default lowered) and keeps its windows' answers", async () => {
    const { ctx, key } = withHistory(6);
    const before = await histories(ctx, key, [1, 3, 6]);
    expect(pruneDatabase(ctx.db.prices, { historyMonths: 6 }, FIXED_NOW).historyFrom).toBe("2026-05-22");
    commitData(ctx.deps);
    expect(await histories(ctx, key, [1, 3, 6])).toEqual(before);
    const oldest = ctx.db.prices.query("SELECT min(valid_from) AS v FROM price_history").get() as { v: string };
    expect(oldest.v < "2026-05-22").toBe(true); // the rows in effect at the window's start

    const over = await get(ctx.app, "/api/v1/prices/7290000066318/history/?months=7", key);
    expect(over.status).toBe(400);
    expect(over.body.code).toBe("invalid_parameter");
    expect(over.body.param).toBe("months");
    expect(over.body.detail).toContain("between 1 and 6");
    const byDefault = await get(ctx.app, "/api/v1/prices/7290000066318/history/", key);
    expect(byDefault.status).toBe(200);
    expect(byDefault.body.meta.months).toBe(6);
    const index = await get(ctx.app, "/api/v1/chains/price-index/?months=12", key);
    expect(index.status).toBe(400);
    expect(index.body.param).toBe("months");
    ctx.close();
  });

  test("a product no longer sold at the window's start leaves no rows before it", () => {
    const { ctx, products } = withHistory(25);
    const f = new Fixture(ctx.db.prices, ctx.chainIds);
    const store = f.store("yochananof", "9");
    f.history(store, products[0]!, "2023-01-01T06:00:00+02:00", 990);
    f.history(store, products[0]!, "2023-06-01T06:00:00+03:00", null);
    pruneHistory(ctx.db.prices, "2024-10-22");
    expect(ctx.db.prices.query("SELECT count(*) AS n FROM price_history WHERE store_id = ?").get(store)).toEqual({ n: 0 });
    ctx.close();
  });
});

describe("promotion and run retention", () => {
  test(`promotions that ended over ${ENDED_PROMOTION_DAYS} days ago go with their lists, items and store links; others stay`, () => {
    const ctx = testApp({ now: () => FIXED_NOW });
    const f = new Fixture(ctx.db.prices, ctx.chainIds);
    const store = f.store("shufersal", "1");
    const product = f.product("7290000066318", "חלב");
    const old = f.promotion("shufersal", "100", { stores: [store], items: [product], startsAt: "2026-08-01T00:00:00+03:00", endsAt: "2026-09-30T23:59:00+03:00" });
    const recent = f.promotion("shufersal", "101", { stores: [store], items: [product], startsAt: "2026-10-01T00:00:00+03:00", endsAt: "2026-11-10T23:59:00+02:00" });
    const open = f.promotion("shufersal", "102", { stores: [store], items: [product], endsAt: "2026-12-31T23:59:00+02:00" });
    const result = pruneDatabase(ctx.db.prices, { historyMonths: 25 }, FIXED_NOW);
    expect(result.promotions).toBe(1);
    const ids = (table: string) => (ctx.db.prices.query(`SELECT DISTINCT promotion_id FROM ${table} ORDER BY 1`).values() as [number][]).map(([id]) => id);
    expect((ctx.db.prices.query("SELECT id FROM promotions ORDER BY id").values() as [number][]).map(([id]) => id)).toEqual([recent, open]);
    for (const table of ["promotion_items", "promotion_lists", "promotion_stores"]) expect(ids(table)).toEqual([recent, open]);
    expect(old).toBeLessThan(recent);
    ctx.close();
  });

  test(`per-file notes (rejected files' reasons too) go after ${RUN_FILE_DAYS} days, runs after ${RUN_DAYS}, never the newest run`, () => {
    const ctx = testApp({ now: () => FIXED_NOW });
    const db = ctx.db.prices;
    const run = (startedAt: string) => {
      const { id } = db.query("INSERT INTO import_runs (started_at, finished_at, origin, status) VALUES (?, ?, 'fetch', 'ok') RETURNING id").get(startedAt, startedAt) as { id: number };
      db.run("INSERT INTO import_files (run_id, file_name, status, reason) VALUES (?, 'PriceFull.xml', 'rejected', 'not a price file')", [id]);
      return id;
    };
    const ancient = run("2026-03-01T06:00:00+02:00");
    const old = run("2026-09-01T06:00:00+03:00");
    const recent = run("2026-11-20T06:00:00+02:00");
    expect(pruneDatabase(db, { historyMonths: 25 }, FIXED_NOW)).toMatchObject({ runs: 1, runFiles: 2 });
    expect(db.query("SELECT id FROM import_runs ORDER BY id").values()).toEqual([[old], [recent]]);
    expect(db.query("SELECT run_id FROM import_files").values()).toEqual([[recent]]);
    expect(ancient).toBeLessThan(old);

    // The newest run stays whatever its age (status and metrics read it).
    db.run("DELETE FROM import_files WHERE run_id = ?", [recent]);
    db.run("DELETE FROM import_runs WHERE id = ?", [recent]);
    pruneDatabase(db, { historyMonths: 25 }, new Date("2027-12-01T00:00:00Z"));
    expect(db.query("SELECT id FROM import_runs").values()).toEqual([[old]]);
    ctx.close();
  });
});

describe("an import prunes after its run", () => {
  test("a first import with one priced history row per product and store leaves the walk out (nothing to remove) and records the pass; with changes and removals it walks", async () => {
    const root = mkdtempSync(join(tmpdir(), "mehir-retention-"));
    try {
      const plan = { stores: 4, itemsPerStore: 60, products: 150, chains: 2, promos: false };
      writeDay(join(root, "day1"), plan, 1);
      writeDay(join(root, "day2"), plan, 2);
      // Every row is older than a month before this: all of them are before the window.
      const now = () => new Date("2027-06-01T10:00:00Z");
      const firstImport = async (paths: string[]) => {
        const db = openDatabase(join(root, `prices-${paths.length}.sqlite`), PRICE_MIGRATIONS);
        const report = await importPaths({ db, registry: loadRegistry(), paths, origin: "cli", source: "live", now, historyMonths: 1, parseWorkers: 0 });
        return { db, report };
      };

      const one = await firstImport([join(root, "day1")]);
      expect(one.report.status).toBe("ok");
      expect(one.report.pruned).toMatchObject({ historyFrom: "2027-05-01", historyRows: 0 });
      expect(one.db.query("SELECT value FROM meta WHERE key = 'history_kept_from'").get()).toEqual({ value: "2027-05-01" });
      const oneRows = rowsBefore(one.db, "2027-05-01");
      expect(oneRows.length).toBeGreaterThan(200);
      expect(oneRows.every((r) => r.n === 1 && r.nulls === 0)).toBe(true);
      // The walk had nothing to remove indeed.
      expect(pruneHistory(one.db, "2027-05-01")).toBe(0);
      one.db.close();

      // Day 2 in the same first run: changed prices and items no longer sold are older rows to remove.
      const two = await firstImport([join(root, "day1"), join(root, "day2")]);
      expect(two.report.status).toBe("ok");
      expect(two.report.pruned!.historyRows).toBeGreaterThan(0);
      const twoRows = rowsBefore(two.db, "2027-05-01");
      expect(twoRows.length).toBeGreaterThan(200);
      expect(twoRows.every((r) => r.n === 1 && r.nulls === 0)).toBe(true);
      two.db.close();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);

  test("importPaths removes history before MEHIR_HISTORY_MONTHS and says so in its report", async () => {
    const root = mkdtempSync(join(tmpdir(), "mehir-retention-"));
    try {
      const plan = { stores: 3, itemsPerStore: 30, products: 100, chains: 2, promos: true };
      writeDay(join(root, "day1"), plan, 1);
      writeDay(join(root, "day2"), plan, 2);
      const db = openDatabase(join(root, "prices.sqlite"), PRICE_MIGRATIONS);
      const run = (day: string, historyMonths: number) =>
        importPaths({ db, registry: loadRegistry(), paths: [join(root, day)], origin: "cli", source: "live", now: () => new Date("2026-11-23T10:00:00Z"), historyMonths, parseWorkers: 0 });
      await run("day1", 25);
      // Older history, as a year of imports would have left it.
      db.run("INSERT INTO price_history (product_id, store_id, valid_from, price) SELECT product_id, store_id, '2025-01-05T06:00:00+02:00', price + 10 FROM price_current");
      db.run("INSERT INTO price_history (product_id, store_id, valid_from, price) SELECT product_id, store_id, '2025-03-05T06:00:00+02:00', price + 20 FROM price_current");
      const pairs = (db.query("SELECT count(*) AS n FROM price_current").get() as { n: number }).n;
      const report = await run("day2", 6);
      expect(report.status).toBe("ok");
      expect(report.pruned).toMatchObject({ historyFrom: "2026-05-23", historyRows: pairs });
      // Per product and store, the 2025-03-05 row is the one in effect at the window's start.
      expect(db.query("SELECT count(*) AS n FROM price_history WHERE valid_from < '2026-05-23'").get()).toEqual({ n: pairs });
      expect(db.query("SELECT count(*) AS n FROM price_history WHERE valid_from LIKE '2025-01-05%'").get()).toEqual({ n: 0 });
      db.close();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);
});
