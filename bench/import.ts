/**
 * End-to-end import speed on national-shaped synthetic files (bench/lib/price-files.ts:
 * Cerberus PriceFull, ~3,500 items per store, gzip, 30 chains): day 1 into an empty data dir,
 * then day 2 (≈3 % price changes, 1 % removals, 1 % additions) on top. Each import runs in a
 * child process (`bench/lib/import-child.ts`) whose peak RSS (VmHWM) is read from /proc.
 * Baseline measured in the same run: `gunzip -c` of the same files to /dev/null.
 *
 *   bun bench/import.ts [--stores 200[,2000]] [--items 3500] [--promos] [--runs 2] [--parse-workers N] [--no-write]
 *   bun bench/import.ts --real [220] [--real-only] [--runs 2]
 *
 * --real adds the real-format workload (bench/lib/real-files.ts: the PriceFull files chains
 * published, from ../shared/samples/real/, replicated over 220 stores as published, gzip),
 * reported in MB/s of XML beside rows/s against `gunzip -c` of the same files, in its own section
 * "## Import, real-format files"; skipped, saying why, when the samples are absent. Target:
 * ≤ 2.0× gunzip -c, peak RSS ≤ 1 GB.
 *
 * Each run imports day 1 into a fresh data dir and day 2 on top; the best run of each day is
 * reported (shared machines are noisy), with the CPU seconds the import process used (all
 * threads) and where its time went.
 *
 * Target: ≥ 150,000 price rows/s end to end, peak RSS ≤ 1 GB. Figures go to bench/RESULTS.md (## Import).
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { flag, numberOption } from "./lib/args.ts";
import { writeDay, type FilesPlan } from "./lib/price-files.ts";
import { loadavg } from "node:os";
import { machineLine, writeSection } from "./lib/results.ts";
import { allocatorEnv, allocatorNote, childEnv } from "./lib/allocator.ts";
import { realSamplesMissing, writeRealDay } from "./lib/real-files.ts";

const args = process.argv.slice(2);
const scales = (args.includes("--stores") ? args[args.indexOf("--stores") + 1]! : "200").split(",").map(Number);
if (scales.some((v) => !Number.isInteger(v) || v <= 0)) throw new Error("--stores expects positive integers, e.g. 200 or 200,2000");
const itemsPerStore = numberOption(args, "items", 3500);
const promos = flag(args, "promos");
const say = (msg: string) => console.error(`[import] ${msg}`);
const n = (v: number) => Math.round(v).toLocaleString("en-US");

function planFor(stores: number): FilesPlan {
  return { stores, itemsPerStore, products: 60_000, chains: 30, promos };
}

function rootFor(plan: FilesPlan): string {
  return resolve(import.meta.dir, "..", ".bench-data", `import-${plan.stores}x${plan.itemsPerStore}${plan.promos ? "-promos" : ""}`);
}

function ensureFiles(plan: FilesPlan, day: number): { dir: string; paths: string[]; priceRows: number; bytes: number } {
  const dir = join(rootFor(plan), `day${day}`);
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

interface Timings {
  read: number;
  parse: number;
  files: number;
  history: number;
  indexes: number;
  chainProducts: number;
  /** Served names chosen from the chains' and generic products rebuilt (product identity). */
  identity: number;
  commit: number;
}

interface ImportRun {
  seconds: number;
  wall: number;
  cpuSeconds: number;
  priceRows: number;
  rows: number;
  peakRss: number;
  status: string;
  timings: Timings;
}

/**
 * The allocator settings the server's launchers give it (bench/lib/allocator.ts): the server runs
 * the scheduled imports, so the child imports as deployed. `MIMALLOC_PURGE_DELAY=` on the bench's
 * command line (empty: left out, mimalloc's default) measures without it.
 */
const LAUNCH_ENV = allocatorEnv();
const launchNote = allocatorNote(LAUNCH_ENV);

const parseWorkers = args.includes("--parse-workers") ? String(numberOption(args, "parse-workers", 1)) : undefined;

async function importChild(dataDir: string, dir: string): Promise<ImportRun> {
  const started = performance.now();
  const env = childEnv(process.env, { ...LAUNCH_ENV, ...(parseWorkers !== undefined ? { BENCH_PARSE_WORKERS: parseWorkers } : {}) });
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "lib/import-child.ts"), "--data-dir", dataDir, dir], { stdout: "pipe", stderr: "inherit", env });
  let peak = 0;
  const poll = setInterval(() => (peak = peakOf(child.pid, peak)), 100);
  const out = await new Response(child.stdout).text();
  await child.exited;
  clearInterval(poll);
  const wall = (performance.now() - started) / 1000;
  if (child.exitCode !== 0) throw new Error(`import child failed (${child.exitCode})`);
  const result = JSON.parse(out.trim().split("\n").pop()!);
  return {
    seconds: result.seconds,
    wall,
    cpuSeconds: result.cpuSeconds,
    priceRows: result.totals.priceRows,
    rows: result.totals.rows,
    peakRss: Math.max(peak, result.peakRss),
    status: result.status,
    timings: result.timings,
  };
}

function gunzipSeconds(paths: string[]): number {
  return gunzipRun(paths).wall;
}

/** `gunzip -c` of the files to /dev/null: wall seconds and the CPU seconds it used. */
function gunzipRun(paths: string[]): { wall: number; cpu: number } {
  const gz = paths.filter((p) => p.endsWith(".gz"));
  const started = performance.now();
  const result = Bun.spawnSync(["gunzip", "-c", ...gz], { stdout: "ignore", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`gunzip failed: ${result.stderr.toString()}`);
  const usage = result.resourceUsage;
  const cpu = usage ? (Number(usage.cpuTime.user) + Number(usage.cpuTime.system)) / 1e6 : NaN;
  return { wall: (performance.now() - started) / 1000, cpu };
}

const TARGET_ROWS = 150_000;
const TARGET_RSS = 2 ** 30;
const runs = numberOption(args, "runs", 2);
const s1 = (ms: number) => (ms / 1000).toFixed(2);

/** Runs one scale `runs` times; returns its Markdown and whether the target was met. */
async function benchScale(plan: FilesPlan): Promise<{ body: string; met: boolean }> {
  const day1 = ensureFiles(plan, 1);
  const day2 = ensureFiles(plan, 2);
  const dataDir = join(rootFor(plan), "data");
  const load = [loadavg()[0]!];
  let first!: ImportRun, second!: ImportRun;
  let gunzip1 = Infinity, gunzip2 = Infinity;
  let peakAll = 0;
  // National scale takes minutes per run: once is enough.
  const times = plan.stores >= 1000 ? 1 : runs;
  for (let r = 0; r < times; r++) {
    rmSync(dataDir, { recursive: true, force: true });
    mkdirSync(dataDir, { recursive: true });
    gunzip1 = Math.min(gunzip1, gunzipSeconds(day1.paths));
    const a = await importChild(dataDir, day1.dir);
    say(`${plan.stores} stores, run ${r + 1} day 1: ${n(a.priceRows)} price rows in ${a.seconds.toFixed(2)} s → ${n(a.priceRows / a.seconds)} rows/s, ${a.cpuSeconds.toFixed(1)} CPU s, peak RSS ${(a.peakRss / 2 ** 20).toFixed(0)} MiB`);
    gunzip2 = Math.min(gunzip2, gunzipSeconds(day2.paths));
    const b = await importChild(dataDir, day2.dir);
    say(`${plan.stores} stores, run ${r + 1} day 2: ${n(b.priceRows)} price rows in ${b.seconds.toFixed(2)} s → ${n(b.priceRows / b.seconds)} rows/s, ${b.cpuSeconds.toFixed(1)} CPU s, peak RSS ${(b.peakRss / 2 ** 20).toFixed(0)} MiB`);
    if (!first || a.seconds < first.seconds) first = a;
    if (!second || b.seconds < second.seconds) second = b;
    peakAll = Math.max(peakAll, a.peakRss, b.peakRss);
    load.push(loadavg()[0]!);
  }
  const dbBytes = readdirSync(dataDir).filter((f) => f.startsWith("prices.sqlite")).reduce((sum, f) => sum + Bun.file(join(dataDir, f)).size, 0);
  const row = (label: string, run: ImportRun, gz: number) =>
    `| ${label} | ${n(run.priceRows)} | ${run.seconds.toFixed(2)} | **${n(run.priceRows / run.seconds)}** | ${run.cpuSeconds.toFixed(1)} | ${gz.toFixed(2)} | ${(run.seconds / gz).toFixed(1)}× |`;
  const split = (label: string, t: Timings) =>
    `| ${label} | ${s1(t.parse)} | ${s1(t.files)} | ${s1(t.history)} | ${s1(t.indexes)} | ${s1(t.chainProducts)} | ${s1(t.identity ?? 0)} | ${s1(t.commit)} |`;
  const worst = Math.min(first.priceRows / first.seconds, second.priceRows / second.seconds);
  const met = worst >= TARGET_ROWS && peakAll <= TARGET_RSS;
  const body = [
    `### ${n(plan.stores)} stores × ${n(plan.itemsPerStore)} items (${n(first.priceRows)} price rows a day)`,
    "",
    machineLine(`${plan.chains} chains, gzip${plan.promos ? ", with a PromoFull per store" : ""}; best of ${times} run(s); parse workers ${parseWorkers ?? "default"}; ${launchNote}; 1-min load average ${load.map((l) => l.toFixed(1)).join(" → ")}`),
    "",
    "| run | price rows | import s | price rows/s | CPU s (all threads) | gunzip -c s | import ÷ gunzip |",
    "|---|---|---|---|---|---|---|",
    row("day 1 (empty data dir)", first, gunzip1),
    row("day 2 (3 % changed, 1 % gone, 1 % new)", second, gunzip2),
    "",
    "Where the time went, seconds (parse = read + gunzip + decode + XML + records, summed over the parse threads, partly in parallel with loading; the rest on the importing thread):",
    "",
    "| run | parse | load files | history rows | indexes | chain_products | names, generic products | commit |",
    "|---|---|---|---|---|---|---|---|",
    split("day 1", first.timings),
    split("day 2", second.timings),
    "",
    `Import time = \`importPaths\` from the first file read to the commit, in a child process (start-up not counted; day 1 wall with start-up ${first.wall.toFixed(2)} s). Peak RSS over all runs ${(peakAll / 2 ** 20).toFixed(0)} MiB (VmHWM of the child). Database after day 2: ${(dbBytes / 2 ** 20).toFixed(0)} MiB.`,
    "",
    `Target (≥ ${n(TARGET_ROWS)} price rows/s, peak RSS ≤ 1 GiB): **${met ? "met" : "not met"}** (${n(worst)} rows/s, ${(peakAll / 2 ** 20).toFixed(0)} MiB).`,
    "",
    reading(second),
  ].join("\n");
  return { body, met };
}

/** One sentence on where the day-2 (daily) import's time goes, per price row. */
function reading(run: ImportRun): string {
  const t = run.timings;
  const perRow = (ms: number) => ((ms * 1000) / run.priceRows).toFixed(1);
  const loading = t.files + t.history + t.indexes + t.chainProducts + (t.identity ?? 0) + t.commit;
  return (
    `Day 2 per price row: parsing ${perRow(t.parse)} µs (thread time on the parse threads, so inflated when they wait for a core), ` +
    `loading ${perRow(loading)} µs on the importing thread; CPU ${((run.cpuSeconds * 1e6) / run.priceRows).toFixed(1)} µs in all. ` +
    `Two cores can at best split the CPU time, so ${n(run.priceRows / (run.cpuSeconds / 2))} rows/s is the ceiling of this run's work on this machine.`
  );
}

/** The real-format workload: `stores` published PriceFull files, imported `runs` times into a fresh data dir. */
async function benchReal(stores: number): Promise<string> {
  const missing = realSamplesMissing();
  if (missing) return `Real-format workload skipped: ${missing}.`;
  const root = resolve(import.meta.dir, "..", ".bench-data", `import-real-${stores}`);
  const day = writeRealDay(join(root, "files"), stores);
  const dataDir = join(root, "data");
  const load = [loadavg()[0]!];
  let best!: ImportRun;
  let gunzip = Infinity;
  let gunzipCpu = Infinity;
  let peakAll = 0;
  for (let r = 0; r < runs; r++) {
    rmSync(dataDir, { recursive: true, force: true });
    mkdirSync(dataDir, { recursive: true });
    const g = gunzipRun(day.paths);
    gunzip = Math.min(gunzip, g.wall);
    gunzipCpu = Math.min(gunzipCpu, g.cpu);
    const run = await importChild(dataDir, day.dir);
    say(`real-format, run ${r + 1}: ${n(run.priceRows)} price rows, ${(day.xmlBytes / 2 ** 20).toFixed(0)} MiB of XML in ${run.seconds.toFixed(2)} s (${run.status}), gunzip -c ${gunzip.toFixed(2)} s, peak RSS ${(run.peakRss / 2 ** 20).toFixed(0)} MiB`);
    if (!best || run.seconds < best.seconds) best = run;
    peakAll = Math.max(peakAll, run.peakRss);
    load.push(loadavg()[0]!);
  }
  const mb = day.xmlBytes / 1e6;
  const ratio = best.seconds / gunzip;
  const met = ratio <= 2 && peakAll <= TARGET_RSS && best.status === "ok";
  return [
    machineLine(`${stores} stores, ${day.samples.length} published PriceFull files (${day.samples.join(", ")}) replicated as published, gzip; best of ${runs} run(s); ${launchNote}; 1-min load average ${load.map((l) => l.toFixed(1)).join(" → ")}`),
    "",
    "| run | price rows | MB of XML | import s | MB/s of XML | price rows/s | CPU s (all threads) | gunzip -c s (CPU s) | gunzip MB/s | import ÷ gunzip, wall | CPU ÷ gunzip CPU | peak RSS |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|",
    `| first import (empty data dir) | ${n(best.priceRows)} | ${mb.toFixed(0)} | ${best.seconds.toFixed(2)} | **${(mb / best.seconds).toFixed(1)}** | ${n(best.priceRows / best.seconds)} | ${best.cpuSeconds.toFixed(1)} | ${gunzip.toFixed(2)} (${gunzipCpu.toFixed(2)}) | ${(mb / gunzip).toFixed(1)} | **${ratio.toFixed(1)}×** | ${(best.cpuSeconds / gunzipCpu).toFixed(1)}× | ${(peakAll / 2 ** 20).toFixed(0)} MiB |`,
    "",
    `Parse (read + gunzip + decode + XML scan + records, time summed over the parse threads, waiting for a core included) ${s1(best.timings.parse)} s: ${(mb / (best.timings.parse / 1000)).toFixed(1)} MB of XML per second of parse-thread time; ` +
      `${((day.xmlBytes / best.priceRows) | 0).toLocaleString("en-US")} bytes of XML per price row (the synthetic workload above: ≈300). gunzip -c is one process writing to /dev/null. On a busy machine the wall ratio is noise; the CPU ratio (import CPU seconds, all threads, ÷ gunzip's) is the steadier figure.`,
    "",
    `Target (≤ 2.0× gunzip -c of the same files, peak RSS ≤ 1 GB): **${met ? "met" : "not met"}** (${ratio.toFixed(1)}×, ${(peakAll / 2 ** 20).toFixed(0)} MiB, status ${best.status}).`,
  ].join("\n");
}

const realOnly = flag(args, "real-only");
if (!realOnly) {
  const sections: string[] = [];
  for (const stores of scales) sections.push((await benchScale(planFor(stores))).body);
  const body = sections.join("\n\n");
  console.log(body);
  if (!flag(args, "no-write")) writeSection("Import", body);
}
if (realOnly || args.includes("--real")) {
  const next = args[args.indexOf("--real") + 1];
  const stores = next !== undefined && /^\d+$/.test(next) ? Number(next) : 220;
  const body = await benchReal(stores);
  console.log(body);
  if (!flag(args, "no-write")) writeSection("Import, real-format files", body);
}
