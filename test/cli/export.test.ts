import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDataDir } from "../../src/db/open.ts";
import { syncRegistry } from "../../src/db/sync-registry.ts";
import { loadRegistry } from "../../src/registry.ts";
import { bumpDataVersion } from "../../src/data/data-state.ts";
import { refreshChainProducts } from "../../src/db/chain-products.ts";
import { runExport } from "../../src/exports/run.ts";
import { EXPORTS_DIR } from "../../src/exports/store.ts";
import { Fixture } from "../helpers/fixture.ts";

const MAIN = join(import.meta.dir, "../../src/main.ts");
const dir = mkdtempSync(join(tmpdir(), "mehir-export-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[]) {
  const r = Bun.spawnSync([process.execPath, MAIN, "export", ...args], { stdout: "pipe", stderr: "pipe", env: { ...process.env, MEHIR_LOG_LEVEL: "error" } });
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString().trim() };
}

const dataDir = join(dir, "data");
const db = openDataDir(dataDir);
const f = new Fixture(db.prices, syncRegistry(db.prices, loadRegistry()));
f.price(f.store("shufersal", "1"), f.product("7290000066318", "חלב"), 690);
refreshChainProducts(db.prices);
bumpDataVersion(db.prices, "2026-11-22T05:30:00+02:00", "demo");
db.prices.close();
db.accounts.close();

test("mehir export DIR writes the data now; --date copies a stored export; errors are one line", async () => {
  const now = run([join(dir, "now"), "--data-dir", dataDir]);
  expect([now.code, now.stderr]).toEqual([0, ""]);
  expect(now.stdout).toMatch(/^stores\.csv\.gz +1 rows/m);
  expect(now.stdout).toContain("data of 2026-11-22, version 1");
  expect(readdirSync(join(dir, "now")).sort()).toEqual(["chains.csv.gz", "manifest.json", "prices.csv.gz", "products.csv.gz", "promotion_items.csv.gz", "promotions.csv.gz", "stores.csv.gz"]);

  const missing = run([join(dir, "copy"), "--data-dir", dataDir, "--date", "2026-11-22"]);
  expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining("no export of 2026-11-22")]);
  await runExport({ dbPath: join(dataDir, "prices.sqlite"), exportsDir: join(dataDir, EXPORTS_DIR), keepDays: 30 }, new Date("2026-11-22T10:00:00Z"));
  const copied = run([join(dir, "copy"), "--data-dir", dataDir, "--date", "2026-11-22"]);
  expect(copied.code).toBe(0);
  expect(readdirSync(join(dir, "copy"))).toHaveLength(7);

  mkdirSync(join(dir, "full"));
  await Bun.write(join(dir, "full", "x"), "x");
  const notEmpty = run([join(dir, "full"), "--data-dir", dataDir]);
  expect(notEmpty.code).not.toBe(0);
  expect(notEmpty.stderr).toContain("not empty");
  expect(run([join(dir, "d"), "--data-dir", dataDir, "--date", "22/11/2026"]).stderr).toContain("--date is YYYY-MM-DD");
  expect(run(["--help"]).stdout).toContain("Usage: mehir export DIR [--date YYYY-MM-DD] [--data-dir DIR]");
}, 120_000);
