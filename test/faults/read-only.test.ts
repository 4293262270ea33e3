import { afterAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ACCOUNTS_FILE, openDatabase, PRICES_FILE } from "../../src/db/open.ts";
import { PRICE_MIGRATIONS } from "../../src/db/price-schema.ts";
import { importPaths } from "../../src/ingest/run/import.ts";
import { loadRegistry } from "../../src/registry.ts";
import { newKey } from "../helpers/keys.ts";
import { MAIN, appOn, ask, priceDigest, someBarcode, tempRoot, twoDays } from "../helpers/faults/faults.ts";

// Starts processes, servers or workers: sized for a loaded 2-core machine, not the 5 s default.
setDefaultTimeout(180_000);

/**
 * A data dir the import cannot write: the import fails with a message naming the cause and the
 * server keeps serving. Tests run as root, and `chmod` does not stop root; two ways that do:
 *   - the data dir's files made immutable with `chattr +i` (ext4 and friends; even root gets
 *     EPERM opening them for writing), with `mehir import` in a child process — skipped where
 *     chattr has no effect;
 *   - the import's connection opened read-only (SQLITE_OPEN_READONLY; always runs).
 */
const root = tempRoot("readonly");
const { day1, day2 } = twoDays(root);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Whether chattr +i really stops root from writing here. */
function immutableWorks(): boolean {
  const probe = join(root, "probe");
  writeFileSync(probe, "x");
  if (Bun.spawnSync(["chattr", "+i", probe], { stderr: "ignore" }).exitCode !== 0) return false;
  let blocked = false;
  try {
    writeFileSync(probe, "y");
  } catch {
    blocked = true;
  }
  Bun.spawnSync(["chattr", "-i", probe]);
  return blocked;
}

describe("read-only data dir during import", () => {
  test.skipIf(!immutableWorks())("immutable data dir: mehir import fails saying so; the server keeps serving", async () => {
    const dataDir = join(root, "immutable");
    const served = appOn(dataDir);
    const locked = [join(dataDir, PRICES_FILE), join(dataDir, ACCOUNTS_FILE), dataDir];
    try {
      await importPaths({ db: served.deps.db.prices, registry: loadRegistry(), paths: [day1], origin: "cli", source: "live" });
      served.deps.data.refresh();
      const key = (newKey(served.deps, "pro", "live").headers)["x-api-key"]!;
      served.deps.db.prices.run("PRAGMA wal_checkpoint(TRUNCATE)");
      const barcode = someBarcode(served.deps.db.prices);
      const before = await ask(served.app, `/api/v1/prices/?barcode=${barcode}`, key);
      const digest = priceDigest(served.deps.db.prices);

      for (const path of locked) expect(Bun.spawnSync(["chattr", "+i", path]).exitCode).toBe(0);
      const failed = Bun.spawnSync([process.execPath, MAIN, "import", day2, "--data-dir", dataDir], { stdout: "pipe", stderr: "pipe" });
      const output = failed.stdout.toString() + failed.stderr.toString();
      expect(failed.exitCode).toBe(1);
      expect(output).toMatch(/readonly database|read-only/);
      expect(output).not.toMatch(/^\s+at /m); // a message, not a stack trace

      served.deps.data.refresh();
      expect(priceDigest(served.deps.db.prices)).toBe(digest);
      expect(await ask(served.app, `/api/v1/prices/?barcode=${barcode}`, key)).toMatchObject({ status: 200, body: { data: before.body.data } });
    } finally {
      for (const path of locked) Bun.spawnSync(["chattr", "-i", path]);
      served.close();
    }
  }, 90_000);

  test("read-only connection for the import: the run fails naming the cause, the old data stays and is served", async () => {
    const dataDir = join(root, "readonly-connection");
    const served = appOn(dataDir);
    try {
      await importPaths({ db: served.deps.db.prices, registry: loadRegistry(), paths: [day1], origin: "cli", source: "live" });
      served.deps.data.refresh();
      const key = (newKey(served.deps, "pro", "live").headers)["x-api-key"]!;
      const barcode = someBarcode(served.deps.db.prices);
      const before = await ask(served.app, `/api/v1/prices/?barcode=${barcode}`, key);
      const digest = priceDigest(served.deps.db.prices);

      const reader = openDatabase(join(dataDir, PRICES_FILE), PRICE_MIGRATIONS, { readonly: true });
      const report = await importPaths({ db: reader, registry: loadRegistry(), paths: [day2], origin: "cli", source: "live" });
      reader.close();
      expect(report.status).toBe("failed");
      expect(report.dataVersion).toBeNull();
      expect(report.error).toMatch(/readonly database/);

      expect(served.deps.data.refresh()).toBe(false);
      expect(priceDigest(served.deps.db.prices)).toBe(digest);
      expect(await ask(served.app, `/api/v1/prices/?barcode=${barcode}`, key)).toMatchObject({ status: 200, body: { data: before.body.data } });
    } finally {
      served.close();
    }
  });
});
