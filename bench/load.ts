/**
 * Production load (issue 11, part 1): a mixed workload — prices (chain and store), search,
 * history, basket, widget, catalog, as far as the routes exist — at a fixed request rate for
 * 60 s from bench/loadgen.ts in a separate process, with an import (importPaths, in its own
 * process like `mehir import`) running in the middle. Baseline measured in the same run: a bare
 * Bun.serve JSON endpoint at the same rate.
 *
 *   bun bench/load.ts [--scale 1] [--rate 5000] [--seconds 60] [--quick] [--record]
 *
 * Then, to say what this machine reaches: the mix's capacity (closed loop, 32 connections,
 * no import) and the same 60 s run with the import at 70 % of that capacity.
 * Each run works on a fresh copy of the cached national database (the import changes it).
 * Target: zero errors, p99 ≤ 25 ms at 5,000 requests/s, p99 during the import at most twice that.
 * Full runs record figures in bench/RESULTS.md under "## Load".
 */
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { PRICES_FILE } from "../src/db/open.ts";
import { BENCH_DATA, ensureNational } from "./national.ts";
import { BENCH_ENV, createBenchKeys } from "./lib/bench-key.ts";
import { writeDay, type FilesPlan } from "./lib/price-files.ts";
import { makeBaskets } from "./basket.ts";
import { runLoadgen, startApi, type CpuShare } from "./lib/processes.ts";
import { catalogPaths, mixData, searchPaths } from "./lib/mix-data.ts";
import { bareBaseline, cores, mib, mixCapacity, routesOf, rssSampler, warmUp, type Capacity } from "./lib/mixed-load.ts";
import { flag, numberOption } from "./lib/args.ts";
import { int, ms, summarize, type LatencySummary } from "./lib/stats.ts";
import { machineLine, table, writeSection } from "./lib/results.ts";
import type { LoadReport, RequestKind } from "./loadgen.ts";

export interface LoadBenchOptions {
  scale: number;
  rate: number;
  seconds: number;
  /** Stores whose PriceFull files the mid-run import loads (≈3,500 rows each); 0: no import. */
  importStores: number;
  /** Also probe the capacity and run at 70 % of it. */
  sustainable: boolean;
  record: boolean;
}

const BUN = process.execPath;
/** Seconds at the target rate before each measured run (not counted). */
const WARM_SECONDS = 10;

/** A fresh copy of the national database to import into. */
function workingCopy(scale: number): string {
  const source = ensureNational(scale);
  const work = join(BENCH_DATA, `load-work-${scale}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  // A clean close leaves no WAL; open and close once to be sure before copying the file alone.
  new Database(join(source, PRICES_FILE)).close();
  copyFileSync(join(source, PRICES_FILE), join(work, PRICES_FILE));
  return work;
}

/** National-shaped PriceFull files for the mid-run import (cached). */
function importFiles(stores: number): string[] {
  const dir = join(BENCH_DATA, `load-import-${stores}`);
  const marker = join(dir, ".done.json");
  if (existsSync(marker)) return (JSON.parse(readFileSync(marker, "utf8")) as { paths: string[] }).paths;
  rmSync(dir, { recursive: true, force: true });
  const plan: FilesPlan = { stores, itemsPerStore: 3500, products: 60_000, chains: 30, promos: false };
  const written = writeDay(dir, plan, 2);
  writeFileSync(marker, JSON.stringify(written));
  return written.paths;
}

/** The mix: request kinds with weights, over paths that stay valid across data versions. */
export function mixOf(dataDir: string, routes: Set<string>, keys: { secret: string; publishable: string }): RequestKind[] {
  const d = mixData(dataDir);
  const city = d.cities[3] ?? d.cities[0]!;
  const enc = encodeURIComponent;
  const top = (n: number) => d.barcodes.slice(0, n);
  const kinds: RequestKind[] = [
    { name: "prices (chain)", weight: 35, paths: d.barcodes.map((b) => `/api/v1/prices/?barcode=${b}`) },
    { name: "prices (store, city)", weight: 10, paths: top(500).map((b) => `/api/v1/prices/?barcode=${b}&granularity=store&city=${enc(city)}`) },
    { name: "history", weight: 10, paths: top(500).map((b) => `/api/v1/prices/${b}/history/?months=6`) },
    { name: "basket (20 items)", weight: 3, method: "POST", paths: ["/api/v1/basket/compare/"], bodies: makeBaskets(d.barcodes, 300, 20, 11), headers: { "content-type": "application/json" } },
    // First pages (a cursor would turn invalid with the import's new data version, as it should).
    { name: "catalog", weight: 5, paths: catalogPaths(d) },
  ];
  if (routes.has("/api/v1/product-search")) kinds.push({ name: "search", weight: 17, paths: searchPaths(d) });
  if (routes.has("/api/v1/widget/data")) {
    kinds.push({ name: "widget", weight: 20, paths: top(1000).map((b) => `/api/v1/widget/data/?barcode=${b}&key=${keys.publishable}`), headers: { origin: "https://shop.example" } });
  }
  for (const k of kinds) if (k.name !== "widget") k.headers = { ...k.headers, "x-api-key": keys.secret };
  return kinds;
}

interface RunResult {
  rate: number;
  report: LoadReport;
  cpu: CpuShare | null;
  kinds: RequestKind[];
  imp: { startedAt: number; endedAt: number; seconds: number; status: string; rows: number } | null;
  outside: LatencySummary;
  during: LatencySummary;
  worstSecond: number;
  rssPeak: number;
  rssEnd: number;
}

/** One measured run on a fresh copy: the mix at `rate` for `seconds`, the import starting a third of the way in. */
async function runAtRate(options: LoadBenchOptions, rate: number, files: string[]): Promise<RunResult> {
  const dataDir = workingCopy(options.scale);
  const keys = createBenchKeys(dataDir, "load-bench");
  const api = await startApi(dataDir, BENCH_ENV);
  let imp: RunResult["imp"] = null;
  try {
    const kinds = mixOf(dataDir, await routesOf(api), keys);
    // Warm-up: every path once, then some; then the target rate for a while (not measured), so
    // the measured run starts from the steady state of a server that has been up (JIT, GC, caches).
    await warmUp(api, kinds);
    await runLoadgen({ baseUrl: api.url, kinds, rate, durationS: WARM_SECONDS, maxInFlight: 2048 });
    const rss = rssSampler(api);
    const t0 = performance.now();
    const importJob = (async () => {
      if (files.length === 0) return;
      await Bun.sleep((options.seconds * 1000) / 3);
      const startedAt = performance.now() - t0;
      const command = [BUN, resolve(import.meta.dir, "lib", "load-import.ts"), "--data-dir", dataDir, ...files];
      const proc = Bun.spawn(command, { stdout: "pipe", stderr: "inherit" });
      const out = await new Response(proc.stdout).text();
      await proc.exited;
      const result = JSON.parse(out.trim().split("\n").pop() || "{}") as { seconds: number; status: string; rows: number };
      imp = { startedAt, endedAt: performance.now() - t0, ...result };
    })();
    const run = await runLoadgen({ baseUrl: api.url, kinds, rate, durationS: options.seconds, maxInFlight: 2048 }, { samples: true, serverPid: api.pid });
    await importJob;
    const memory = rss.stop();

    const during: number[] = [];
    const outside: number[] = [];
    const perSecond = new Map<number, number[]>();
    const samples = run.samples!;
    const window = imp as RunResult["imp"];
    for (let i = 0; i < samples.length; i += 4) {
      const at = samples[i]!;
      const latency = samples[i + 1]!;
      // "During" runs from the import's start to the end of the run: the import itself, then the
      // switch to the new data version with cold caches and a search index rebuild.
      (window && at >= window.startedAt ? during : outside).push(latency);
      const second = Math.floor(at / 1000);
      if (!perSecond.has(second)) perSecond.set(second, []);
      perSecond.get(second)!.push(latency);
    }
    if (process.env.BENCH_VERBOSE) {
      for (const [second, values] of [...perSecond].sort((a, b) => a[0] - b[0])) {
        const sec = summarize(values);
        console.error(`[load ${rate}/s] t=${second}s n=${sec.count} p50=${ms(sec.p50)} p99=${ms(sec.p99)}`);
      }
    }
    return {
      rate,
      report: run.report,
      cpu: run.cpu,
      kinds,
      imp: window,
      outside: summarize(outside),
      during: summarize(during),
      worstSecond: [...perSecond.values()].map((v) => summarize(v).p99).reduce((a, b) => Math.max(a, b), 0),
      rssPeak: memory.peak,
      rssEnd: memory.end,
    };
  } finally {
    await api.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Requests per second the server answers for the mix, closed loop at 32 connections, no import. */
async function capacity(options: LoadBenchOptions): Promise<Capacity> {
  const dataDir = ensureNational(options.scale);
  const keys = createBenchKeys(dataDir, "load-capacity");
  const api = await startApi(dataDir, BENCH_ENV);
  try {
    const kinds = mixOf(dataDir, await routesOf(api), keys);
    await warmUp(api, kinds);
    return await mixCapacity(api, kinds, 15);
  } finally {
    await api.stop();
  }
}

function passes(r: RunResult): boolean {
  return r.report.errors === 0 && r.outside.p99 <= 25 && r.during.p99 <= 50 && r.report.requestsPerSecond >= r.rate * 0.98;
}

function runRows(label: string, r: RunResult, seconds: number): (string | number)[][] {
  const importSeconds = r.imp ? seconds - r.imp.startedAt / 1000 : 0;
  return [
    [
      `${label}: whole run`,
      int(r.report.requestsPerSecond),
      ms(r.report.latency.p50),
      ms(r.report.latency.p99),
      ms(r.report.latency.max),
      String(r.report.errors),
      `${mib(r.rssPeak)} peak, ${mib(r.rssEnd)} at end`,
      r.cpu ? int(r.cpu.serverUsPerRequest) : "–",
      cores(r.cpu),
    ],
    [`… before the import`, int(r.outside.count / Math.max(1, seconds - importSeconds)), ms(r.outside.p50), ms(r.outside.p99), ms(r.outside.max), "", "", "", ""],
    [
      `… from the import's start to the end (${importSeconds.toFixed(0)} s: import ${r.imp ? ((r.imp.endedAt - r.imp.startedAt) / 1000).toFixed(0) : "–"} s, then the new data version)`,
      r.imp ? int(r.during.count / Math.max(1, importSeconds)) : "–",
      ms(r.during.p50),
      ms(r.during.p99),
      ms(r.during.max),
      "",
      "",
      "",
      "",
    ],
  ];
}

export async function loadBench(options: LoadBenchOptions) {
  const files = options.importStores > 0 ? importFiles(options.importStores) : [];

  // ---- baseline: bare Bun.serve at the target rate.
  const baselineSeconds = Math.min(20, options.seconds);
  const baseline = await bareBaseline(options.rate, baselineSeconds);

  const target = await runAtRate(options, options.rate, files);
  let cap: Capacity | null = null;
  let sustained: RunResult | null = null;
  if (options.sustainable) {
    cap = await capacity(options);
    sustained = await runAtRate(options, Math.max(100, Math.floor((cap.rps * 0.7) / 100) * 100), files);
  }

  const head = ["run", "req/s", "p50 ms", "p99 ms", "max ms", "errors", "server RSS", "server µs CPU/req", "CPU: server / loadgen / other (cores)"];
  const rows: (string | number)[][] = [
    [
      `bare Bun.serve at ${int(options.rate)} req/s (${baselineSeconds} s)`,
      int(baseline.report.requestsPerSecond),
      ms(baseline.report.latency.p50),
      ms(baseline.report.latency.p99),
      ms(baseline.report.latency.max),
      String(baseline.report.errors),
      `${mib(baseline.rssPeak)} peak`,
      baseline.cpu ? int(baseline.cpu.serverUsPerRequest) : "–",
      cores(baseline.cpu),
    ],
    ...runRows(`mehir at ${int(options.rate)} req/s`, target, options.seconds),
  ];
  if (cap) {
    rows.push([`mehir capacity for the mix (closed loop, 32 connections, no import)`, int(cap.rps), "", ms(cap.p99), "", "", "", cap.cpu ? int(cap.cpu.serverUsPerRequest) : "–", cores(cap.cpu)]);
  }
  if (sustained) rows.push(...runRows(`mehir at ${int(sustained.rate)} req/s (70 % of capacity)`, sustained, options.seconds));

  const describe = (r: RunResult) =>
    r.imp
      ? `${options.importStores} PriceFull files (${int(r.imp.rows)} rows) from ${(r.imp.startedAt / 1000).toFixed(1)} s to ${(r.imp.endedAt / 1000).toFixed(1)} s (status ${r.imp.status})`
      : "no import";
  const verdict = (r: RunResult) =>
    `at ${int(r.rate)} req/s: **${passes(r) ? "met" : "not met"}** (errors ${r.report.errors}, p99 before the import ${ms(r.outside.p99)} ms, from its start ${ms(r.during.p99)} ms, worst second ${ms(r.worstSecond)} ms)`;
  const markdown = [
    machineLine(`scale ${options.scale}, open loop (latency counted from each request's scheduled send time), ${options.seconds} s per run`),
    "",
    table(head, rows),
    "",
    `Mix (weights): ${target.kinds.map((k) => `${k.name} ${k.weight}`).join(", ")}. Per kind at ${int(options.rate)} req/s:`,
    "",
    table(
      ["kind", "requests", "p50 ms", "p99 ms", "errors"],
      target.report.kinds.map((k) => [k.name, int(k.count), ms(k.p50), ms(k.p99), String(k.errors)]),
    ),
    "",
    `Import: importPaths in a separate process (as \`mehir import\` runs it: at idle CPU priority), ${describe(target)}` + (sustained ? `; in the 70 % run ${describe(sustained)}` : "") +
      `; it ends with the chain_products refresh over every price row, and the server then switches to the new data version (caches start cold).`,
    `Status counts at ${int(options.rate)} req/s: ${Object.entries(target.report.statuses).map(([s, n]) => `${s}: ${int(n)}`).join(", ")}.` +
      (target.report.firstErrors.length ? ` First errors: ${target.report.firstErrors.slice(0, 2).join(" | ").slice(0, 400)}` : ""),
    "",
    `Target (zero errors, p99 ≤ 25 ms, p99 during the import ≤ 50 ms) ${verdict(target)}` + (sustained ? `; ${verdict(sustained)}.` : "."),
  ].join("\n");
  if (options.record) writeSection("Load", markdown);
  return { pass: passes(target), markdown };
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const quick = flag(args, "quick");
  const { markdown } = await loadBench({
    scale: numberOption(args, "scale", quick ? 0.05 : 1),
    rate: numberOption(args, "rate", quick ? 1000 : 5000),
    seconds: numberOption(args, "seconds", quick ? 12 : 60),
    importStores: args.includes("--no-import") ? 0 : numberOption(args, "import-stores", quick ? 10 : 100),
    sustainable: !quick && !flag(args, "no-sustainable"),
    record: flag(args, "record") || !quick,
  });
  console.log(markdown);
}
