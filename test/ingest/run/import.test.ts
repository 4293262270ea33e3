import { afterAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../../src/db/open.ts";
import { PRICE_MIGRATIONS } from "../../../src/db/price-schema.ts";
import { loadRegistry } from "../../../src/registry.ts";
import { importPaths, type ImportOptions } from "../../../src/ingest/run/import.ts";
import { runImportInWorker, startImportWorker } from "../../../src/ingest/run/run-in-worker.ts";
import { priceFullXml, writeDay, type FilesPlan } from "../../../bench/lib/price-files.ts";
import { REAL_SAMPLES, realSamplesFor } from "../../helpers/real-samples.ts";

// Starts processes, servers or workers: sized for a loaded 2-core machine, not the 5 s default.
setDefaultTimeout(180_000);

const PLAN: FilesPlan = { stores: 6, itemsPerStore: 40, products: 300, chains: 2, promos: true };
const root = mkdtempSync(join(tmpdir(), "mehir-import-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const day1 = writeDay(join(root, "day1"), PLAN, 1);
const day2 = writeDay(join(root, "day2"), PLAN, 2);
let dirs = 0;

function freshFileDb(): { db: Database; path: string } {
  const dir = join(root, `db${++dirs}`);
  mkdirSync(dir);
  const path = join(dir, "prices.sqlite");
  return { db: openDatabase(path, PRICE_MIGRATIONS), path };
}

const run = (db: Database, paths: string[], extra: Partial<ImportOptions> = {}) =>
  importPaths({ db, registry: loadRegistry(), paths, origin: "cli", source: "live", now: () => new Date("2026-11-22T10:00:00Z"), ...extra });

/** A digest of everything an import changes; equal digests = equal price data. */
function digest(db: Database): string {
  const q = (sql: string) => JSON.stringify(db.query(sql).values());
  return [
    q("SELECT count(*), sum(price), sum(store_id * 7 + product_id * 13 + price) FROM price_current"),
    q("SELECT count(*), sum(coalesce(price, -1)), sum(store_id + product_id) FROM price_history"),
    q("SELECT count(*) FROM products"),
    q("SELECT count(*) FROM promotion_stores"),
    q("SELECT value FROM meta WHERE key = 'data_version'"),
  ].join("|");
}

describe("importPaths", () => {
  test("imports a folder: Stores first, then prices, then promotions; writes the run report", async () => {
    const { db } = freshFileDb();
    const report = await run(db, [join(root, "day1")]);
    expect(report.status).toBe("ok");
    expect(report.dataVersion).toBe(1);
    expect(report.totals).toMatchObject({ files: day1.paths.length, ok: day1.paths.length, rejected: 0, priceRows: day1.priceRows });
    const types = report.files.map((f) => f.type);
    expect(types.lastIndexOf("stores")).toBeLessThan(types.indexOf("pricefull"));
    expect(types.lastIndexOf("pricefull")).toBeLessThan(types.indexOf("promofull"));
    expect(db.query("SELECT count(*) AS n FROM price_current").get()).toEqual({ n: day1.priceRows });
    expect(db.query("SELECT count(*) AS n FROM stores").get()).toEqual({ n: PLAN.stores });
    expect(db.query("SELECT status, files, rows FROM import_runs").get()).toEqual({ status: "ok", files: day1.paths.length, rows: report.totals.rows });
    // The run's measured duration is kept (its timestamps are whole seconds).
    expect(db.query("SELECT duration_ms FROM import_runs").get()).toEqual({ duration_ms: Math.round(report.durationMs) });
    expect(db.query("SELECT count(*) AS n FROM import_files WHERE run_id = ?").get(report.runId)).toEqual({ n: day1.paths.length });
    // Every product gets a category from the keyword classifier.
    expect(db.query("SELECT count(*) AS n FROM products WHERE category IS NULL").get()).toEqual({ n: 0 });
    expect((db.query("SELECT count(*) AS n FROM products WHERE category <> 'other'").get() as { n: number }).n).toBeGreaterThan(0);
    // Chain health follows the newest file of each chain.
    expect((db.query("SELECT count(*) AS n FROM chain_health WHERE last_data_at IS NOT NULL").get() as { n: number }).n).toBe(PLAN.chains);
  });

  test("a second day replaces the lists: changes, removals and additions reach price_current and history", async () => {
    const { db } = freshFileDb();
    await run(db, [join(root, "day1")]);
    const report = await run(db, [join(root, "day2")]);
    expect(report.status).toBe("ok");
    expect(db.query("SELECT count(*) AS n FROM price_current").get()).toEqual({ n: day2.priceRows });
    const changes = report.files.filter((f) => f.type === "pricefull").reduce((sum, f) => sum + f.counts.changed! + f.counts.removed! + f.counts.inserted!, 0);
    expect(changes).toBeGreaterThan(0);
    expect(db.query("SELECT count(*) AS n FROM price_history").get()).toEqual({ n: day1.priceRows + changes });
    expect((db.query("SELECT count(*) AS n FROM price_history WHERE price IS NULL").get() as { n: number }).n).toBeGreaterThan(0);
  });

  test("bad files are reported and skipped while the rest imports", async () => {
    const dir = join(root, "mixed");
    mkdirSync(dir);
    for (const path of day1.paths.slice(0, 4)) copyFileSync(path, join(dir, path.split("/").pop()!));
    const good = day1.paths.slice(0, 4).map((p) => p.split("/").pop()!);
    writeFileSync(join(dir, "PriceFull7290027600007-099-202611210300.gz"), Buffer.from([0x1f, 0x8b, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8])); // corrupt gzip
    writeFileSync(join(dir, "PriceFull7290000000999-001-202611210300.xml"), priceFullXml("7290000000999", 1, [])); // unknown chain
    writeFileSync(join(dir, "PriceFull7290027600007-098-202611210300.xml"), priceFullXml("7290058140886", 98, [])); // wrong chain in header
    writeFileSync(join(dir, "PriceFull7290027600007-097-202611210300.xml"), `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x "y">]><Root><Items/></Root>`);
    writeFileSync(join(dir, "PriceFull7290027600007-096-202611210300.gz"), Bun.gzipSync(new Uint8Array(3 * 2 ** 20))); // 3 MB of zeros
    const { db } = freshFileDb();
    const report = await run(db, [dir], { maxFileBytes: 2 ** 20 });
    const byName = Object.fromEntries(report.files.map((f) => [f.fileName, f]));
    for (const name of good) expect(byName[name]!.status).toBe("ok");
    expect(byName["PriceFull7290000000999-001-202611210300.xml"]).toMatchObject({ status: "rejected", reason: "unknown chain 7290000000999" });
    expect(byName["PriceFull7290027600007-098-202611210300.xml"]!.reason).toContain("differs from the file name's chain");
    for (const name of ["PriceFull7290027600007-099-202611210300.gz", "PriceFull7290027600007-097-202611210300.xml", "PriceFull7290027600007-096-202611210300.gz"]) {
      expect(byName[name]!.status, name).toBe("rejected");
    }
    expect(byName["PriceFull7290027600007-096-202611210300.gz"]!.reason).toContain("limit");
    expect(report.status).toBe("partial");
    expect(report.dataVersion).toBe(1);
    expect(db.query("SELECT status, count(*) AS n FROM import_files GROUP BY status ORDER BY status").all()).toEqual([
      { status: "ok", n: 4 },
      { status: "rejected", n: 5 },
    ]);
  });

  test("nothing importable: the run fails, the data stays, a failed run row is written", async () => {
    const { db } = freshFileDb();
    await run(db, [join(root, "day1")]);
    const before = digest(db);
    const dir = join(root, "only-bad");
    mkdirSync(dir);
    writeFileSync(join(dir, "PriceFull7290000000999-001-202611210300.xml"), priceFullXml("7290000000999", 1, []));
    const report = await run(db, [dir, join(root, "no-such-folder")]);
    expect(report.status).toBe("failed");
    expect(report.dataVersion).toBeNull();
    expect(report.files.map((f) => f.status)).toEqual(["rejected", "rejected"]);
    expect(digest(db)).toBe(before);
    expect(db.query("SELECT status FROM import_runs ORDER BY id DESC LIMIT 1").get()).toEqual({ status: "failed" });
  });

  test("a failure mid-run rolls everything back: old data and data version stay", async () => {
    const { db } = freshFileDb();
    await run(db, [join(root, "day1")]);
    const before = digest(db);
    const report = await run(db, [join(root, "day2")], {
      onProgress: (done) => {
        if (done === 5) throw new Error("disk on fire");
      },
    });
    expect(report.status).toBe("failed");
    expect(report.error).toBe("disk on fire");
    expect(digest(db)).toBe(before);
  });

  test("the run's pages end in prices.sqlite itself: a copy of the file alone holds the data, the log is emptied", async () => {
    const { db, path } = freshFileDb();
    // Another connection (a server's) keeps SQLite from checkpointing when the importing one closes.
    const reader = new Database(path, { readonly: true });
    try {
      expect(reader.query("SELECT count(*) AS n FROM price_current").get()).toEqual({ n: 0 });
      const report = await run(db, [join(root, "day1")]);
      expect(report.status).toBe("ok");
      expect(statSync(`${path}-wal`).size).toBe(0);
      const copy = join(root, `copy${++dirs}.sqlite`);
      copyFileSync(path, copy);
      const alone = new Database(copy, { readonly: true });
      try {
        expect(alone.query("SELECT count(*) AS n FROM price_current").get()).toEqual({ n: day1.priceRows });
        expect(alone.query("SELECT status FROM import_runs WHERE id = ?").get(report.runId)).toEqual({ status: "ok" });
      } finally {
        alone.close();
      }
      expect(reader.query("SELECT count(*) AS n FROM price_current").get()).toEqual({ n: day1.priceRows });
    } finally {
      reader.close();
    }
  });

  test("the log is copied into the database file after onCommitted, not by the commit; the connection's setting is kept", async () => {
    const { db, path } = freshFileDb();
    // Small enough that any commit of a run would copy the log into the file by itself.
    db.run("PRAGMA wal_autocheckpoint = 10");
    const before = statSync(path).size;
    let fileAtCommit = -1;
    let logAtCommit = -1;
    const report = await run(db, [join(root, "day1")], {
      onCommitted: () => {
        fileAtCommit = statSync(path).size;
        logAtCommit = statSync(`${path}-wal`).size;
      },
    });
    expect(report.status).toBe("ok");
    // Served from the log at the commit; the file grows with the checkpoint at the end of the run.
    expect(fileAtCommit).toBe(before);
    expect(logAtCommit).toBeGreaterThan(10 * 4096);
    expect(statSync(path).size).toBeGreaterThan(before);
    expect(statSync(`${path}-wal`).size).toBe(0);
    expect(db.query("PRAGMA wal_autocheckpoint").values()).toEqual([[10]]);
    const failed = await run(db, [join(root, "day2")], {
      onProgress: () => {
        throw new Error("stop");
      },
    });
    expect(failed.status).toBe("failed");
    expect(db.query("PRAGMA wal_autocheckpoint").values()).toEqual([[10]]);
  });

  test("a reader on another connection sees only the old data until the commit", async () => {
    const { db, path } = freshFileDb();
    await run(db, [join(root, "day1")]);
    const reader = openDatabase(path, PRICE_MIGRATIONS);
    const old = digest(reader);
    const seen = new Set<string>();
    await run(db, [join(root, "day2")], { onProgress: () => void seen.add(digest(reader)) });
    expect([...seen]).toEqual([old]);
    expect(digest(reader)).toBe(digest(db));
    expect(digest(reader)).not.toBe(old);
    reader.close();
  });

  test("demo and live data are never mixed: importing the other source replaces", async () => {
    const { db } = freshFileDb();
    await run(db, [join(root, "day1")], { source: "demo" });
    const report = await run(db, [day2.paths.find((p) => p.includes("PriceFull"))!], { source: "live" });
    expect(report.replaced).toBe(true);
    expect(db.query("SELECT count(DISTINCT store_id) AS n FROM price_current").get()).toEqual({ n: 1 });
    expect(db.query("SELECT value FROM meta WHERE key = 'source'").get()).toEqual({ value: "live" });
  });
});

test("parse worker threads give the same data as parsing inline", async () => {
  const inline = freshFileDb();
  await run(inline.db, [join(root, "day1")], { parseWorkers: 0 });
  const pooled = freshFileDb();
  const report = await run(pooled.db, [join(root, "day1")], { parseWorkers: 2 });
  expect(report.status).toBe("ok");
  expect(digest(pooled.db)).toBe(digest(inline.db));
  expect(pooled.db.query("SELECT name, manufacturer, size_amount, size_unit FROM products ORDER BY id LIMIT 3").all()).toEqual(
    inline.db.query("SELECT name, manufacturer, size_amount, size_unit FROM products ORDER BY id LIMIT 3").all(),
  );
});

describe("runImportInWorker", () => {
  test("imports on the worker's own connection and reports progress", async () => {
    const { db, path } = freshFileDb();
    const progress: number[] = [];
    const report = await runImportInWorker({ dbPath: path, paths: [join(root, "day1")], origin: "demo", source: "demo", priority: "normal", onProgress: (done) => progress.push(done) });
    expect(report.status).toBe("ok");
    expect(progress.at(-1)).toBe(day1.paths.length);
    expect(db.query("SELECT count(*) AS n FROM price_current").get()).toEqual({ n: day1.priceRows });
  });

  test("onCommitted comes with the data committed and visible on another connection, before the run's report", async () => {
    const { db, path } = freshFileDb();
    const seen: { version: number; meta: unknown; prices: unknown }[] = [];
    const order: string[] = [];
    const report = await runImportInWorker({
      dbPath: path, paths: [join(root, "day1")], origin: "demo", source: "demo", priority: "normal",
      onCommitted: (version) => {
        order.push("committed");
        seen.push({
          version,
          meta: db.query("SELECT value FROM meta WHERE key = 'data_version'").get(),
          prices: db.query("SELECT count(*) AS n FROM price_current").get(),
        });
      },
    });
    order.push("report");
    expect(report.status).toBe("ok");
    // The worker posts the commit before it writes the run's report (whether that row is already
    // written when this thread reads is a race, not asserted): the caller hears of the data first.
    expect(order).toEqual(["committed", "report"]);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.version).toBe(report.dataVersion!);
    expect(seen[0]!.meta).toEqual({ value: String(report.dataVersion) });
    expect(seen[0]!.prices).toEqual({ n: day1.priceRows });
    expect(db.query("SELECT count(*) AS n FROM import_runs").get()).toEqual({ n: 1 });
  });

  test("onCommitted is not called for a run that commits nothing", async () => {
    const { path } = freshFileDb();
    const files = join(root, "no-files");
    mkdirSync(files);
    let called = 0;
    const report = await runImportInWorker({ dbPath: path, paths: [files], origin: "demo", source: "demo", priority: "normal", onCommitted: () => called++ });
    expect(report.status).toBe("failed");
    expect(called).toBe(0);
  });

  test("a worker started ahead runs later; fileReports: problems replies with only the files not imported as they were", async () => {
    const { db, path } = freshFileDb();
    const files = join(root, "day1-and-junk");
    mkdirSync(files);
    for (const file of day1.paths) copyFileSync(file, join(files, file.split("/").pop()!));
    writeFileSync(join(files, "PriceFull7290027600007-001-202611220300.xml"), "<Root><Items><Item><ItemCode>");
    const importer = startImportWorker();
    const report = await importer.run({ dbPath: path, paths: [files], origin: "demo", source: "demo", priority: "normal", fileReports: "problems" });
    expect(report.totals.files).toBe(day1.paths.length + 1);
    expect(report.files.map((f) => f.status)).not.toContain("ok");
    expect(report.files.length).toBeGreaterThan(0);
    expect(report.files.length).toBeLessThan(report.totals.files);
    // Every file's report is in the run's tables all the same.
    expect(db.query("SELECT count(*) AS n FROM import_files WHERE run_id = ?").get(report.runId)).toEqual({ n: day1.paths.length + 1 });
    expect(db.query("SELECT count(*) AS n FROM price_current").get()).toEqual({ n: day1.priceRows });
  });
});

test.skipIf(!realSamplesFor("real sample files import"))("real sample files import: only the non-price file is rejected", async () => {
  const { db } = freshFileDb();
  const report = await run(db, [REAL_SAMPLES]);
  const rejected = report.files.filter((f) => f.status === "rejected").map((f) => f.fileName);
  expect(rejected).toEqual(["SOURCES.md"]);
  expect(db.query("SELECT count(*) AS n FROM stores WHERE chain_code = '7290639000004'").get()).toEqual({ n: 10 });
});
