/**
 * Child process of bench/import.ts: imports the given folder into a data dir and prints one
 * JSON line with the import's own time and the process's peak RSS (VmHWM).
 *
 *   bun bench/lib/import-child.ts --data-dir DIR PATH...
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { openDatabase, PRICES_FILE } from "../../src/db/open.ts";
import { PRICE_MIGRATIONS } from "../../src/db/price-schema.ts";
import { loadRegistry } from "../../src/registry.ts";
import { importPaths } from "../../src/ingest/import.ts";

const args = process.argv.slice(2);
const at = args.indexOf("--data-dir");
const dataDir = args[at + 1]!;
const paths = args.filter((_, i) => i !== at && i !== at + 1);
const db = openDatabase(join(dataDir, PRICES_FILE), PRICE_MIGRATIONS);
const started = performance.now();
const workers = process.env.BENCH_PARSE_WORKERS === undefined ? undefined : Number(process.env.BENCH_PARSE_WORKERS);
const report = await importPaths({ db, registry: loadRegistry(), paths, origin: "cli", source: "live", parseWorkers: workers });
const seconds = (performance.now() - started) / 1000;
db.close();
const hwm = Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? NaN) * 1024;
const cpu = process.cpuUsage();
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
console.log(JSON.stringify({ seconds, cpuSeconds, status: report.status, totals: report.totals, timings: report.timings, peakRss: hwm }));
