/**
 * Production load (issue 11, part 1): a mixed workload — prices (chain and store), search,
 * history, basket, widget, catalog, as far as the routes exist — at a fixed request rate for
 * 60 s from bench/loadgen.ts in a separate process, with an import (importPaths, in its own
 * process like `mehir import`) running in the middle. Baseline measured in the same run: a bare
 * Bun.serve JSON endpoint at the same rate.
 *
 *   bun bench/load.ts [--scale 1] [--rate 5000] [--seconds 60] [--quick] [--record]
 *
 * Works on a copy of the cached national database (the import changes it). Reports requests/s,
 * p50/p99 overall and during the import, errors and the server's RSS. Target: zero errors,
 * p99 ≤ 25 ms at 5,000 requests/s, p99 during the import at most twice that.
 * Full runs record figures in bench/RESULTS.md under "## Load".
 */
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { PRICES_FILE } from "../src/db/open.ts";
import { BENCH_DATA, ensureNational } from "./national.ts";
import { popularBarcodes } from "./lib/national-build.ts";
import { BENCH_ENV, createBenchKeys } from "./lib/bench-key.ts";
import { writeDay, type FilesPlan } from "./lib/price-files.ts";
import { makeBaskets } from "./basket.ts";
import { catalogPaths } from "./http.ts";
import { runLoadgen, startApi, startBare, type ServerProcess } from "./lib/processes.ts";
import { flag, numberOption } from "./lib/args.ts";
import { int, ms, summarize } from "./lib/stats.ts";
import { machineLine, table, writeSection } from "./lib/results.ts";
import type { RequestKind } from "./loadgen.ts";

export interface LoadBenchOptions {
  scale: number;
  rate: number;
  seconds: number;
  /** Stores whose PriceFull files the mid-run import loads (≈3,500 rows each). */
  importStores: number;
  record: boolean;
}

const BUN = process.execPath;

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

/** Which of the optional routes this build has (from its own OpenAPI document). */
async function routesOf(api: ServerProcess): Promise<Set<string>> {
  const doc = (await (await fetch(`${api.url}/docs/json`)).json()) as { paths: Record<string, unknown> };
  return new Set(Object.keys(doc.paths).map((p) => p.replace(/\/$/, "")));
}

/** Search words: the first word of popular product names. */
function searchTerms(dataDir: string): string[] {
  const db = new Database(join(dataDir, PRICES_FILE));
  const names = db.query("SELECT name FROM products ORDER BY id LIMIT 2000").all() as { name: string }[];
  db.close();
  const words = new Set<string>();
  for (const { name } of names) {
    const parts = name.split(" ");
    words.add(parts[0]!);
    if (parts[1]) words.add(`${parts[0]} ${parts[1]}`);
  }
  return [...words];
}

export async function loadBench(options: LoadBenchOptions) {
  const dataDir = workingCopy(options.scale);
  const keys = createBenchKeys(dataDir, "load-bench");
  const files = options.importStores > 0 ? importFiles(options.importStores) : [];
  const db = new Database(join(dataDir, PRICES_FILE));
  const barcodes = popularBarcodes(db, 2000);
  const city = (db.query("SELECT city FROM stores WHERE city <> 'אילת' GROUP BY city ORDER BY count(*) DESC LIMIT 1 OFFSET 3").get() as { city: string }).city;
  const biggest = (db.query("SELECT c.slug FROM stores s JOIN chains c ON c.id = s.chain_id GROUP BY c.slug ORDER BY count(*) DESC LIMIT 1").get() as { slug: string }).slug;
  db.close();
  const terms = searchTerms(dataDir);
  const pick = <T>(list: T[], n: number) => list.slice(0, n);

  // ---- baseline: bare Bun.serve at the same rate.
  const baselineSeconds = Math.min(20, options.seconds);
  const bare = await startBare();
  let baseline;
  let bareRss = NaN;
  try {
    const kinds: RequestKind[] = [
      { name: "bare small", weight: 1, paths: ["/small"] },
      { name: "bare 11 KB", weight: 1, paths: ["/answer"] },
    ];
    await runLoadgen({ baseUrl: bare.url, kinds, rate: options.rate, maxRequests: options.rate * 2, warmupRequests: 1 });
    baseline = await runLoadgen({ baseUrl: bare.url, kinds, rate: options.rate, durationS: baselineSeconds }, { serverPid: bare.pid });
    bareRss = bare.memory().peak;
  } finally {
    await bare.stop();
  }

  // ---- the real server.
  const api = await startApi(dataDir, BENCH_ENV);
  const rssSamples: { t: number; rss: number }[] = [];
  let importInfo: { startedAt: number; endedAt: number; seconds: number; status: string; rows: number } | null = null;
  let run;
  let kinds: RequestKind[] = [];
  try {
    const routes = await routesOf(api);
    const enc = encodeURIComponent;
    kinds = [
      { name: "prices (chain)", weight: 35, paths: barcodes.map((b) => `/api/v1/prices/?barcode=${b}`) },
      { name: `prices (store, city)`, weight: 10, paths: pick(barcodes, 500).map((b) => `/api/v1/prices/?barcode=${b}&granularity=store&city=${enc(city)}`) },
      { name: "history", weight: 10, paths: pick(barcodes, 500).map((b) => `/api/v1/prices/${b}/history/?months=6`) },
      { name: "basket (20 items)", weight: 3, method: "POST", paths: ["/api/v1/basket/compare/"], bodies: makeBaskets(pick(barcodes, 2000), 300, 20, 11), headers: { "content-type": "application/json" } },
      { name: "catalog", weight: 5, paths: await catalogPaths(api, keys.secret, biggest, 100) },
    ];
    if (routes.has("/api/v1/product-search")) {
      kinds.push({ name: "search", weight: 17, paths: terms.map((t) => `/api/v1/product-search/?q=${enc(t)}&limit=20`) });
    }
    if (routes.has("/api/v1/widget/data")) {
      kinds.push({
        name: "widget",
        weight: 20,
        paths: pick(barcodes, 1000).map((b) => `/api/v1/widget/data/?barcode=${b}&key=${keys.publishable}`),
        headers: { origin: "https://shop.example" },
      });
    }
    for (const k of kinds) if (k.name !== "widget") k.headers = { ...k.headers, "x-api-key": keys.secret };

    // Warm-up: every path once, then a short burst at the target rate.
    await runLoadgen({ baseUrl: api.url, kinds, concurrency: 32, warmupRequests: 1, maxRequests: 2000 });

    // Measured run; the import starts a third of the way in.
    const poll = setInterval(() => rssSamples.push({ t: performance.now(), rss: api.memory().rss }), 1000);
    const t0 = performance.now();
    const importAt = (options.seconds * 1000) / 3;
    const importJob = (async () => {
      if (options.importStores === 0) return;
      await Bun.sleep(importAt);
      const startedAt = performance.now() - t0;
      const proc = Bun.spawn([BUN, resolve(import.meta.dir, "lib", "load-import.ts"), "--data-dir", dataDir, ...files], { stdout: "pipe", stderr: "inherit" });
      const out = await new Response(proc.stdout).text();
      await proc.exited;
      const endedAt = performance.now() - t0;
      const result = JSON.parse(out.trim().split("\n").pop() || "{}") as { seconds: number; status: string; rows: number };
      importInfo = { startedAt, endedAt, ...result };
    })();
    run = await runLoadgen({ baseUrl: api.url, kinds, rate: options.rate, durationS: options.seconds, maxInFlight: 2048 }, { samples: true, serverPid: api.pid });
    await importJob;
    clearInterval(poll);
  } finally {
    await api.stop();
  }

  // ---- figures.
  const { report, samples, cpu } = run!;
  const imp = importInfo as { startedAt: number; endedAt: number; seconds: number; status: string; rows: number } | null;
  const during: number[] = [];
  const outside: number[] = [];
  const perSecond = new Map<number, number[]>();
  for (let i = 0; i < samples!.length; i += 4) {
    const at = samples![i]!;
    const latency = samples![i + 1]!;
    if (imp && at >= imp.startedAt && at <= imp.endedAt) during.push(latency);
    else outside.push(latency);
    const second = Math.floor(at / 1000);
    if (!perSecond.has(second)) perSecond.set(second, []);
    perSecond.get(second)!.push(latency);
  }
  if (process.env.BENCH_VERBOSE) {
    for (const [second, values] of [...perSecond].sort((a, b) => a[0] - b[0])) {
      const sec = summarize(values);
      console.error(`[load] t=${second}s n=${sec.count} p50=${ms(sec.p50)} p99=${ms(sec.p99)}`);
    }
  }
  const d = summarize(during);
  const o = summarize(outside);
  const rssPeak = Math.max(...rssSamples.map((s) => s.rss));
  const rssEnd = rssSamples[rssSamples.length - 1]?.rss ?? NaN;
  const worstSecond = [...perSecond.values()].map((v) => summarize(v).p99).reduce((a, b) => Math.max(a, b), 0);
  const pass = report.errors === 0 && o.p99 <= 25 && d.p99 <= 50 && report.requestsPerSecond >= options.rate * 0.98;
  const mib = (b: number) => `${int(b / 2 ** 20)} MiB`;

  const markdown = [
    machineLine(`scale ${options.scale}, fixed rate ${int(options.rate)} req/s (open loop: latency counted from the scheduled send time), ${options.seconds} s`),
    "",
    table(
      ["run", "req/s", "p50 ms", "p99 ms", "max ms", "errors", "server RSS", "server µs CPU/req", "CPU: server / loadgen / other (cores)"],
      [
        [
          `bare Bun.serve baseline (${baselineSeconds} s)`,
          int(baseline.report.requestsPerSecond),
          ms(baseline.report.latency.p50),
          ms(baseline.report.latency.p99),
          ms(baseline.report.latency.max),
          String(baseline.report.errors),
          `${mib(bareRss)} peak`,
          baseline.cpu ? int(baseline.cpu.serverUsPerRequest) : "–",
          baseline.cpu ? `${baseline.cpu.server.toFixed(2)} / ${baseline.cpu.loadgen.toFixed(2)} / ${baseline.cpu.other.toFixed(2)}` : "–",
        ],
        [
          "mehir, mixed workload, whole run",
          int(report.requestsPerSecond),
          ms(report.latency.p50),
          ms(report.latency.p99),
          ms(report.latency.max),
          String(report.errors),
          `${mib(rssPeak)} peak, ${mib(rssEnd)} at end`,
          cpu ? int(cpu.serverUsPerRequest) : "–",
          cpu ? `${cpu.server.toFixed(2)} / ${cpu.loadgen.toFixed(2)} / ${cpu.other.toFixed(2)}` : "–",
        ],
        ["… outside the import", int(o.count / (options.seconds - (imp ? (imp.endedAt - imp.startedAt) / 1000 : 0))), ms(o.p50), ms(o.p99), ms(o.max), "", "", "", ""],
        ["… during the import", imp ? int(d.count / ((imp.endedAt - imp.startedAt) / 1000)) : "–", ms(d.p50), ms(d.p99), ms(d.max), "", "", "", ""],
      ],
    ),
    "",
    "Per kind (whole run):",
    "",
    table(
      ["kind", "weight", "requests", "p50 ms", "p99 ms", "errors"],
      report.kinds.map((k, i) => [k.name, String(kinds[i]!.weight), int(k.count), ms(k.p50), ms(k.p99), String(k.errors)]),
    ),
    "",
    imp
      ? `Import: ${options.importStores} PriceFull files (${int(imp.rows)} rows) through importPaths in a separate process, from ${(imp.startedAt / 1000).toFixed(1)} s to ${(imp.endedAt / 1000).toFixed(1)} s ` +
        `(${imp.seconds.toFixed(1)} s, status ${imp.status}; includes the chain_products refresh over all ${scaleRows(options.scale)} price rows); the server then swapped to the new data version.`
      : "Import: did not run.",
    `Worst one-second p99: ${ms(worstSecond)} ms. Status counts: ${Object.entries(report.statuses).map(([s, n]) => `${s}: ${int(n)}`).join(", ")}.` +
      (report.firstErrors.length ? ` First errors: ${report.firstErrors.slice(0, 3).join(" | ")}` : ""),
    "",
    `Target (zero errors, p99 ≤ 25 ms at ${int(options.rate)} req/s, p99 during the import ≤ 50 ms): **${pass ? "met" : "not met"}**.`,
  ].join("\n");
  if (options.record) writeSection("Load", markdown);
  rmSync(dataDir, { recursive: true, force: true });
  return { pass, markdown };
}

function scaleRows(scale: number): string {
  return scale >= 1 ? "≈7.3 M" : `≈${int(7_300_000 * scale)}`;
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const quick = flag(args, "quick");
  const { markdown } = await loadBench({
    scale: numberOption(args, "scale", quick ? 0.05 : 1),
    rate: numberOption(args, "rate", quick ? 1000 : 5000),
    seconds: numberOption(args, "seconds", quick ? 12 : 60),
    importStores: args.includes("--no-import") ? 0 : numberOption(args, "import-stores", quick ? 10 : 100),
    record: flag(args, "record") || !quick,
  });
  console.log(markdown);
}
