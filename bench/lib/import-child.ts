/**
 * Child process of bench/import.ts: imports the given folder into a data dir and prints one
 * JSON line with the import's own time and the process's peak RSS (VmHWM).
 *
 *   bun bench/lib/import-child.ts --data-dir DIR PATH...
 *
 * With BENCH_TIMELINE=1 the line also holds when (epoch ms) the run started, loaded its first and
 * last file, committed and ended, and the importing thread's own times over the run (schedstat:
 * CPU, run-queue wait, and blocked = the rest of the wall) — bench/import-threads.ts reads them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { openDatabase, PRICES_FILE } from "../../src/db/open.ts";
import { PRICE_MIGRATIONS } from "../../src/db/price-schema.ts";
import { loadRegistry } from "../../src/registry.ts";
import { importPaths } from "../../src/ingest/run/import.ts";
import { threadTimes } from "./thread-times.ts";

const args = process.argv.slice(2);
const at = args.indexOf("--data-dir");
const dataDir = args[at + 1]!;
const paths = args.filter((_, i) => i !== at && i !== at + 1);
const db = openDatabase(join(dataDir, PRICES_FILE), PRICE_MIGRATIONS);
const timeline = process.env.BENCH_TIMELINE === "1";
const epoch = () => performance.timeOrigin + performance.now();
const marks: Record<string, number> = {};
const own0 = timeline ? threadTimes(process.pid, process.pid) : null;
/** When the first and the last file were loaded (files are reported loaded one by one). */
function markLoaded(done: number, total: number): void {
  if (done === 1) marks.firstLoaded = epoch();
  if (done === total) marks.lastLoaded = epoch();
}
marks.start = epoch();
const started = performance.now();
const workers = process.env.BENCH_PARSE_WORKERS === undefined ? undefined : Number(process.env.BENCH_PARSE_WORKERS);
const report = await importPaths({
  db,
  registry: loadRegistry(),
  paths,
  origin: "cli",
  source: "live",
  parseWorkers: workers,
  onProgress: timeline ? markLoaded : undefined,
  onCommitted: timeline ? () => (marks.committed = epoch()) : undefined,
});
const seconds = (performance.now() - started) / 1000;
marks.end = epoch();
const own1 = timeline ? threadTimes(process.pid, process.pid) : null;
db.close();
const hwm = Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? NaN) * 1024;
const cpu = process.cpuUsage();
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
const importing =
  own0 && own1 ? { cpu: own1.cpu - own0.cpu, wait: own1.wait - own0.wait, blocked: seconds * 1000 - (own1.cpu - own0.cpu) - (own1.wait - own0.wait) } : undefined;
console.log(JSON.stringify({ seconds, cpuSeconds, status: report.status, totals: report.totals, timings: report.timings, peakRss: hwm, ...(timeline ? { marks, importing } : {}) }));
