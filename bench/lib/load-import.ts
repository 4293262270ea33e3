/**
 * Child process of bench/load.ts: the import that runs while the server is under load, as
 * `mehir import` would run it from another process (at the import priority `mehir import` sets,
 * see src/ingest/import-priority.ts) — importPaths on its own connection to the
 * data dir, with the database's current source so nothing is replaced wholesale. Prints one JSON
 * line: { seconds, status, rows }.
 *
 *   bun bench/lib/load-import.ts --data-dir DIR PATH...
 */
import { join } from "node:path";
import { openDatabase, PRICES_FILE } from "../../src/db/open.ts";
import { PRICE_MIGRATIONS } from "../../src/db/price-schema.ts";
import { loadRegistry } from "../../src/registry.ts";
import { importPaths } from "../../src/ingest/run/import.ts";
import { runAtImportPriority } from "../../src/ingest/run/import-priority.ts";

runAtImportPriority();
const args = process.argv.slice(2);
const at = args.indexOf("--data-dir");
const dataDir = args[at + 1]!;
const paths = args.filter((_, i) => i !== at && i !== at + 1);
const db = openDatabase(join(dataDir, PRICES_FILE), PRICE_MIGRATIONS);
const source = (db.query("SELECT value FROM meta WHERE key = 'source'").get() as { value: "demo" | "live" } | null)?.value ?? "demo";
const started = performance.now();
const report = await importPaths({ db, registry: loadRegistry(), paths, origin: "cli", source });
db.close();
console.log(JSON.stringify({ seconds: (performance.now() - started) / 1000, status: report.status, rows: report.totals.rows }));
