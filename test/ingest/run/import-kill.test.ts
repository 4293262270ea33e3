import { afterAll, expect, test, setDefaultTimeout } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../../src/db/open.ts";
import { PRICE_MIGRATIONS } from "../../../src/db/price-schema.ts";
import { loadRegistry } from "../../../src/registry.ts";
import { importPaths } from "../../../src/ingest/run/import.ts";
import { writeDay } from "../../../bench/lib/price-files.ts";
import { writerActive } from "../../../src/http/observability/data-metrics.ts";

// Starts processes, servers or workers: sized for a loaded 2-core machine, not the 5 s default.
setDefaultTimeout(180_000);

const MAIN = join(import.meta.dir, "../../../src/main.ts");
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

/**
 * Resolves once the import in `child` holds the prices database's write transaction (seen from a
 * connection of this process, as /metrics sees it), or when it has exited.
 */
async function untilWriting(dataDir: string, child: { exited: Promise<number> }): Promise<void> {
  let exited = false;
  void child.exited.then(() => (exited = true));
  const db = new Database(join(dataDir, "prices.sqlite"));
  try {
    while (!exited && !writerActive(db)) await Bun.sleep(5);
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
  // Big enough that the writes are most of a run (kills land in them), small enough for 5 runs on a loaded machine.
  const plan = { stores: 12, itemsPerStore: 1000, products: 4000, chains: 3, promos: true };
  writeDay(join(root, "day1"), plan, 1);
  writeDay(join(root, "day2"), plan, 2);

  // The old snapshot: day 1 imported (connection closed, so the file stands alone).
  const base = join(root, "base");
  mkdirSync(base);
  const db = openDatabase(join(base, "prices.sqlite"), PRICE_MIGRATIONS);
  await importPaths({ db, registry: loadRegistry(), paths: [join(root, "day1")], origin: "cli", source: "live" });
  // Into the main file: a closed bun:sqlite handle whose statements are not finalized yet has not
  // checkpointed, and copies take the main file only.
  db.run("PRAGMA wal_checkpoint(TRUNCATE)");
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
    if (i === 0) {
      // Once mid-write, whatever the machine's speed: as soon as the import holds the write transaction.
      await untilWriting(dir, child);
    } else {
      // Spread the other kills over the calibrated run: start-up, loading, the final writes and commit.
      await Bun.sleep(duration * (0.15 + 0.8 * Math.random()));
    }
    child.kill("SIGKILL");
    await child.exited;
    const after = digestOf(dir);
    expect(after.integrity).toEqual({ integrity_check: "ok" });
    expect([old, next]).toContain(after.digest);
    outcomes.push(after.digest === old ? "old" : "new");
  }
  // At least one kill must have landed mid-import for the test to mean something.
  expect(outcomes).toContain("old");
}, 600_000);
