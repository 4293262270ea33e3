/**
 * End-to-end import speed on national-shaped synthetic files (bench/lib/price-files.ts:
 * Cerberus PriceFull, ~3,500 items per store, gzip, 30 chains): day 1 into an empty data dir,
 * then day 2 (≈3 % price changes, 1 % removals, 1 % additions) on top. Each import runs in a
 * child process (`bench/lib/import-child.ts`) whose peak RSS (VmHWM) is read from /proc.
 * Baseline measured in the same run: `gunzip -c` of the same files to /dev/null.
 *
 *   bun bench/import.ts [--stores 200] [--items 3500] [--promos] [--no-write]
 *
 * Target: ≥ 150,000 price rows/s end to end, peak RSS ≤ 1 GB. Figures go to bench/RESULTS.md (## Import).
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { flag, numberOption } from "./lib/args.ts";
import { writeDay, type FilesPlan } from "./lib/price-files.ts";
import { machineLine, writeSection } from "./lib/results.ts";

const args = process.argv.slice(2);
const plan: FilesPlan = {
  stores: numberOption(args, "stores", 200),
  itemsPerStore: numberOption(args, "items", 3500),
  products: 60_000,
  chains: 30,
  promos: flag(args, "promos"),
};
const ROOT = resolve(import.meta.dir, "..", ".bench-data", `import-${plan.stores}x${plan.itemsPerStore}${plan.promos ? "-promos" : ""}`);
const say = (msg: string) => console.error(`[import] ${msg}`);
const n = (v: number) => Math.round(v).toLocaleString("en-US");

function ensureFiles(day: number): { dir: string; paths: string[]; priceRows: number; bytes: number } {
  const dir = join(ROOT, `day${day}`);
  const marker = join(dir, ".done.json");
  if (existsSync(marker)) return JSON.parse(readFileSync(marker, "utf8"));
  rmSync(dir, { recursive: true, force: true });
  say(`generating day ${day}: ${plan.stores} stores × ${plan.itemsPerStore} items${plan.promos ? " + promotions" : ""}`);
  const written = writeDay(dir, plan, day);
  const info = { dir, ...written };
  writeFileSync(marker, JSON.stringify(info));
  return info;
}

function peakOf(pid: number, peak: number): number {
  try {
    const kb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN);
    return Number.isFinite(kb) ? Math.max(peak, kb * 1024) : peak;
  } catch {
    return peak;
  }
}

interface ImportRun {
  seconds: number;
  wall: number;
  priceRows: number;
  rows: number;
  peakRss: number;
  status: string;
}

async function importChild(dataDir: string, dir: string): Promise<ImportRun> {
  const started = performance.now();
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "lib/import-child.ts"), "--data-dir", dataDir, dir], { stdout: "pipe", stderr: "inherit" });
  let peak = 0;
  const poll = setInterval(() => (peak = peakOf(child.pid, peak)), 100);
  const out = await new Response(child.stdout).text();
  await child.exited;
  clearInterval(poll);
  const wall = (performance.now() - started) / 1000;
  if (child.exitCode !== 0) throw new Error(`import child failed (${child.exitCode})`);
  const result = JSON.parse(out.trim().split("\n").pop()!);
  return { seconds: result.seconds, wall, priceRows: result.totals.priceRows, rows: result.totals.rows, peakRss: Math.max(peak, result.peakRss), status: result.status };
}

function gunzipSeconds(paths: string[]): number {
  const gz = paths.filter((p) => p.endsWith(".gz"));
  const started = performance.now();
  const result = Bun.spawnSync(["gunzip", "-c", ...gz], { stdout: "ignore", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`gunzip failed: ${result.stderr.toString()}`);
  return (performance.now() - started) / 1000;
}

const day1 = ensureFiles(1);
const day2 = ensureFiles(2);
const dataDir = join(ROOT, "data");
rmSync(dataDir, { recursive: true, force: true });
mkdirSync(dataDir, { recursive: true });

const gunzip1 = gunzipSeconds(day1.paths);
say(`gunzip -c day 1: ${gunzip1.toFixed(2)} s for ${day1.paths.length} files (${(day1.bytes / 2 ** 20).toFixed(0)} MiB gz)`);
const first = await importChild(dataDir, day1.dir);
say(`day 1: ${n(first.priceRows)} price rows in ${first.seconds.toFixed(2)} s → ${n(first.priceRows / first.seconds)} rows/s, peak RSS ${(first.peakRss / 2 ** 20).toFixed(0)} MiB`);
const gunzip2 = gunzipSeconds(day2.paths);
const second = await importChild(dataDir, day2.dir);
say(`day 2: ${n(second.priceRows)} price rows in ${second.seconds.toFixed(2)} s → ${n(second.priceRows / second.seconds)} rows/s, peak RSS ${(second.peakRss / 2 ** 20).toFixed(0)} MiB`);
const dbBytes = readdirSync(dataDir).filter((f) => f.startsWith("prices.sqlite")).reduce((s, f) => s + Bun.file(join(dataDir, f)).size, 0);

const TARGET_ROWS = 150_000;
const TARGET_RSS = 2 ** 30;
const row = (label: string, run: ImportRun, gz: number) =>
  `| ${label} | ${n(run.priceRows)} | ${run.seconds.toFixed(2)} | ${n(run.priceRows / run.seconds)} | ${gz.toFixed(2)} | ${(run.seconds / gz).toFixed(1)}× | ${(run.peakRss / 2 ** 20).toFixed(0)} MiB |`;
const worst = Math.min(first.priceRows / first.seconds, second.priceRows / second.seconds);
const peak = Math.max(first.peakRss, second.peakRss);
const met = worst >= TARGET_ROWS && peak <= TARGET_RSS;
const body = [
  machineLine(`${plan.stores} stores × ${plan.itemsPerStore} items, ${plan.chains} chains, gzip${plan.promos ? ", with a PromoFull per store" : ""}`),
  "",
  "| run | price rows | import s | price rows/s | gunzip -c s | import ÷ gunzip | peak RSS |",
  "|---|---|---|---|---|---|---|",
  row("day 1 (empty data dir)", first, gunzip1),
  row("day 2 (3 % changed, 1 % gone, 1 % new)", second, gunzip2),
  "",
  `Import time = \`importPaths\` from the first file read to the commit (read, gunzip, decode, parse, load, history, indexes, chain_products), in a child process; its start-up (day 1 wall ${first.wall.toFixed(2)} s) not counted. Database after day 2: ${(dbBytes / 2 ** 20).toFixed(0)} MiB.`,
  "",
  `Target (≥ ${n(TARGET_ROWS)} price rows/s, peak RSS ≤ 1 GiB): **${met ? "met" : "not met"}** (${n(worst)} rows/s, ${(peak / 2 ** 20).toFixed(0)} MiB).`,
].join("\n");
console.log(body);
if (!flag(args, "no-write")) writeSection("Import", body);
