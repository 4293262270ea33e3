import { afterAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { mkdirSync, rmSync, statSync, statfsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDatabase, PRICES_FILE } from "../../src/db/open.ts";
import { PRICE_MIGRATIONS } from "../../src/db/price-schema.ts";
import { importPaths } from "../../src/ingest/run/import.ts";
import { loadRegistry } from "../../src/registry.ts";
import { newKey } from "../helpers/keys.ts";
import { MAIN, appOn, ask, priceDigest, someBarcode, tempRoot, twoDays, untilReady } from "../helpers/faults/faults.ts";

// Starts processes, servers or workers: sized for a loaded 2-core machine, not the 5 s default.
setDefaultTimeout(180_000);

/**
 * A full disk during an import: the import fails with a message naming the cause, nothing of it
 * is visible, and the server keeps serving the previous data. Two ways to fill the disk:
 *   - a real one: the data dir on a small tmpfs filled to the brim, `mehir import` in a child
 *     process (needs `mount`, i.e. root; skipped otherwise);
 *   - SQLite's own limit: `PRAGMA max_page_count` on the import's connection (always runs).
 */
const root = tempRoot("full");
const { day1, day2 } = twoDays(root);
afterAll(() => rmSync(root, { recursive: true, force: true }));

function canMount(): boolean {
  const probe = join(root, "probe");
  mkdirSync(probe, { recursive: true });
  const ok = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", probe], { stderr: "ignore" }).exitCode === 0;
  if (ok) Bun.spawnSync(["umount", "-l", probe]);
  return ok;
}

/**
 * `mehir import DAY2` on `dataDir` in a child process, awaited (not spawnSync: this process serves
 * the same data dir and must go on answering, and releasing what it reads, meanwhile).
 */
async function importInChild(dataDir: string): Promise<{ exitCode: number; output: string }> {
  const child = Bun.spawn([process.execPath, MAIN, "import", day2, "--data-dir", dataDir], { stdout: "pipe", stderr: "pipe" });
  const [out, err, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { exitCode, output: out + err };
}

describe("full disk during import", () => {
  test.skipIf(!canMount())("data dir on a full tmpfs: mehir import fails saying so; serving and later imports are fine", async () => {
    const dataDir = join(root, "tmpfs-data");
    mkdirSync(dataDir);
    expect(Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", dataDir]).exitCode).toBe(0);
    const served = appOn(dataDir);
    try {
      await importPaths({ db: served.deps.db.prices, registry: loadRegistry(), paths: [day1], origin: "cli", source: "live" });
      served.deps.data.refresh();
      served.deps.db.prices.run("PRAGMA wal_checkpoint(TRUNCATE)");
      const key = (newKey(served.deps, "pro", "live").headers)["x-api-key"]!;
      const barcode = someBarcode(served.deps.db.prices);
      const before = await ask(served.app, `/api/v1/prices/?barcode=${barcode}&granularity=store`, key);
      expect(before.status).toBe(200);
      const digest = priceDigest(served.deps.db.prices);

      // Leave 64 KiB free.
      const fs = statfsSync(dataDir);
      writeFileSync(join(dataDir, "filler"), Buffer.alloc(fs.bavail * fs.bsize - 64 * 1024));
      const failed = await importInChild(dataDir);
      const output = failed.output;
      expect(failed.exitCode).toBe(1);
      expect(output).toMatch(/nothing changed/);
      expect(output).toMatch(/disk is full/);

      // Serving is intact: same snapshot, same answer.
      served.deps.data.refresh();
      expect(priceDigest(served.deps.db.prices)).toBe(digest);
      expect(await ask(served.app, `/api/v1/prices/?barcode=${barcode}&granularity=store`, key)).toMatchObject({ status: 200, body: { data: before.body.data } });
      await untilReady(served.app);

      // With space again, the same import goes through.
      rmSync(join(dataDir, "filler"));
      const retried = await importInChild(dataDir);
      expect(retried.exitCode, retried.output).toBe(0);
      expect(served.deps.data.refresh()).toBe(true);
      expect(priceDigest(served.deps.db.prices)).not.toBe(digest);
    } finally {
      served.close();
      Bun.spawnSync(["umount", "-l", dataDir]);
    }
  }, 180_000);

  test("SQLite page limit on the import's connection: the import fails, the old data stays and is served", async () => {
    const dataDir = join(root, "page-limit");
    const served = appOn(dataDir);
    try {
      await importPaths({ db: served.deps.db.prices, registry: loadRegistry(), paths: [day1], origin: "cli", source: "live" });
      served.deps.data.refresh();
      const key = (newKey(served.deps, "pro", "live").headers)["x-api-key"]!;
      const barcode = someBarcode(served.deps.db.prices);
      const before = await ask(served.app, `/api/v1/prices/?barcode=${barcode}`, key);
      const digest = priceDigest(served.deps.db.prices);

      const writer = openDatabase(join(dataDir, PRICES_FILE), PRICE_MIGRATIONS);
      const pages = (writer.query("PRAGMA page_count").get() as { page_count: number }).page_count;
      writer.run(`PRAGMA max_page_count = ${pages + 4}`);
      const report = await importPaths({ db: writer, registry: loadRegistry(), paths: [day2], origin: "cli", source: "live" });
      writer.close();
      expect(report.status).toBe("failed");
      expect(report.dataVersion).toBeNull();
      expect(report.error).toBeTruthy();

      expect(served.deps.data.refresh()).toBe(false);
      expect(priceDigest(served.deps.db.prices)).toBe(digest);
      expect(await ask(served.app, `/api/v1/prices/?barcode=${barcode}`, key)).toMatchObject({ status: 200, body: { data: before.body.data } });
    } finally {
      served.close();
    }
  });

  // When SQLITE_FULL strikes inside a file's savepoint SQLite has already rolled the whole
  // transaction back; the run must fail with that cause (it used to read "no such savepoint:
  // import_file", from the file's ROLLBACK TO).
  test("SQLite page limit: the run's error names the full disk", async () => {
    const dataDir = join(root, "page-limit-message");
    const served = appOn(dataDir);
    try {
      await importPaths({ db: served.deps.db.prices, registry: loadRegistry(), paths: [day1], origin: "cli", source: "live" });
      const writer = openDatabase(join(dataDir, PRICES_FILE), PRICE_MIGRATIONS);
      const pages = (writer.query("PRAGMA page_count").get() as { page_count: number }).page_count;
      writer.run(`PRAGMA max_page_count = ${pages + 4}`);
      const report = await importPaths({ db: writer, registry: loadRegistry(), paths: [day2], origin: "cli", source: "live" });
      writer.close();
      expect(report.status).toBe("failed");
      expect(report.error ?? "").toMatch(/database or disk is full/);
      expect(report.error ?? "").not.toMatch(/savepoint/);
    } finally {
      served.close();
    }
  });

  // Audit F8: the rolled-back run's pages had grown prices.sqlite-wal (on a real full disk, to the
  // last free byte) and it stayed that size, so the disk stayed full after the failure.
  test("a failed import leaves the write-ahead log emptied, so the disk gets its space back", async () => {
    const dataDir = join(root, "wal-after-failure");
    const served = appOn(dataDir);
    try {
      await importPaths({ db: served.deps.db.prices, registry: loadRegistry(), paths: [day1], origin: "cli", source: "live" });
      const writer = openDatabase(join(dataDir, PRICES_FILE), PRICE_MIGRATIONS);
      const pages = (writer.query("PRAGMA page_count").get() as { page_count: number }).page_count;
      // A small page cache spills the run's pages into the log long before the page limit stops it.
      writer.run("PRAGMA cache_size = 20");
      writer.run(`PRAGMA max_page_count = ${pages + 10}`);
      let walDuringRun = 0;
      const report = await importPaths({
        db: writer,
        registry: loadRegistry(),
        paths: [day2],
        origin: "cli",
        source: "live",
        onProgress: () => (walDuringRun = Math.max(walDuringRun, walSize(dataDir))),
      });
      expect(report.status).toBe("failed");
      expect(report.error ?? "").toMatch(/database or disk is full/);
      expect(walDuringRun).toBeGreaterThan(64 * 1024);
      expect(walSize(dataDir)).toBe(0);
      writer.close();
    } finally {
      served.close();
    }
  });
});

function walSize(dataDir: string): number {
  try {
    return statSync(join(dataDir, `${PRICES_FILE}-wal`)).size;
  } catch {
    return 0;
  }
}

