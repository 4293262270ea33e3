import { afterAll, expect, test, setDefaultTimeout } from "bun:test";
import type { Database } from "bun:sqlite";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/db/open.ts";
import { PRICE_MIGRATIONS } from "../../src/db/price-schema.ts";
import { loadRegistry } from "../../src/registry.ts";
import { importPaths } from "../../src/ingest/import.ts";
import { writeDay } from "../../bench/lib/price-files.ts";

// Starts processes, servers or workers: sized for a loaded 2-core machine, not the 5 s default.
setDefaultTimeout(180_000);

const MAIN = join(import.meta.dir, "../../src/main.ts");
const root = mkdtempSync(join(tmpdir(), "mehir-kill-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A digest of the price data and its version. */
function digest(db: Database): string {
  const q = (sql: string) => JSON.stringify(db.query(sql).values());
  return [
    q("SELECT count(*), sum(price), sum(store_id * 7 + product_id * 13 + price) FROM price_current"),
    q("SELECT count(*), sum(coalesce(price, -1)), sum(store_id + product_id) FROM price_history"),
    q("SELECT count(*), sum(length(name)) FROM products"),
    q("SELECT count(*), sum(store_count + price_mode) FROM chain_products"),
    q("SELECT value FROM meta WHERE key = 'data_version'"),
  ].join("|");
}

function digestOf(dataDir: string): { digest: string; integrity: unknown } {
  const db = openDatabase(join(dataDir, "prices.sqlite"), PRICE_MIGRATIONS);
  try {
    return { digest: digest(db), integrity: db.query("PRAGMA integrity_check").get() };
  } finally {
    db.close();
  }
}

function copyBase(base: string, name: string): string {
  const dir = join(root, name);
  mkdirSync(dir);
  copyFileSync(join(base, "prices.sqlite"), join(dir, "prices.sqlite"));
  return dir;
}

test("kill -9 at any moment of an import leaves the old data or the new, never a mix", async () => {
  const plan = { stores: 24, itemsPerStore: 1200, products: 5000, chains: 3, promos: true };
  writeDay(join(root, "day1"), plan, 1);
  writeDay(join(root, "day2"), plan, 2);

  // The old snapshot: day 1 imported (connection closed, so the file stands alone).
  const base = join(root, "base");
  mkdirSync(base);
  const db = openDatabase(join(base, "prices.sqlite"), PRICE_MIGRATIONS);
  await importPaths({ db, registry: loadRegistry(), paths: [join(root, "day1")], origin: "cli", source: "live" });
  db.close();
  const old = digestOf(base).digest;

  // The new snapshot, and how long a whole import takes in a child process.
  const full = copyBase(base, "full");
  const started = performance.now();
  const done = Bun.spawnSync([process.execPath, MAIN, "import", join(root, "day2"), "--data-dir", full, "--json"], { stdout: "pipe", stderr: "pipe" });
  const duration = performance.now() - started;
  expect(done.exitCode).toBe(0);
  const next = digestOf(full).digest;
  expect(next).not.toBe(old);

  const outcomes: string[] = [];
  for (let i = 0; i < 4; i++) {
    const dir = copyBase(base, `kill${i}`);
    const child = Bun.spawn([process.execPath, MAIN, "import", join(root, "day2"), "--data-dir", dir, "--json"], { stdout: "ignore", stderr: "ignore" });
    // Spread the kills over the run: start-up, loading, the final writes and commit.
    await Bun.sleep(duration * (0.15 + 0.8 * Math.random()));
    child.kill("SIGKILL");
    await child.exited;
    const after = digestOf(dir);
    expect(after.integrity).toEqual({ integrity_check: "ok" });
    expect([old, next]).toContain(after.digest);
    outcomes.push(after.digest === old ? "old" : "new");
  }
  // At least one kill must have landed mid-import for the test to mean something.
  expect(outcomes).toContain("old");
}, 300_000);
