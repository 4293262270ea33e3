/**
 * Child process of demo-data-dir.ts, run under an flock of the cache's lock file: builds the
 * scale-1 demo data dir at CACHE (generated and imported at NOW, as a first start does) unless a
 * previous holder of the lock already did. Built aside, then renamed into place whole.
 *
 *   bun test/helpers/build-demo-data-dir.ts CACHE NOW
 */
import { existsSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { openDataDir, PRICES_FILE } from "../../src/db/open.ts";
import { syncRegistry } from "../../src/db/sync-registry.ts";
import { DEMO_FILES_DIR, ensureDemoData } from "../../src/demo/first-start.ts";
import { loadRegistry } from "../../src/registry.ts";

const [cache, now] = process.argv.slice(2) as [string, string];
if (!existsSync(join(cache, PRICES_FILE))) {
  const part = `${cache}.part-${process.pid}`;
  rmSync(part, { recursive: true, force: true });
  const db = openDataDir(part);
  const registry = loadRegistry();
  syncRegistry(db.prices, registry);
  await ensureDemoData({ db: db.prices, registry, dataDir: part, now: new Date(now), importer: "inline" });
  db.prices.run("PRAGMA wal_checkpoint(TRUNCATE)");
  db.prices.close();
  db.accounts.close();
  rmSync(join(part, DEMO_FILES_DIR), { recursive: true, force: true });
  rmSync(cache, { recursive: true, force: true });
  renameSync(part, cache);
}
process.exit(0);
