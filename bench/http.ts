/**
 * HTTP read path under concurrent load (issue 6, "Speed"): the real server on the synthetic
 * national database against a bare `Bun.serve` JSON endpoint, both driven by bench/loadgen.ts
 * in a separate process at 50 connections.
 *
 *   bun bench/http.ts [--scale 1] [--seconds 15] [--quick] [--record]
 *
 * Full runs (no --quick) record their figures in bench/RESULTS.md under "## HTTP".
 * Targets: prices at chain granularity ≥ 35 % of the bare server's requests/s, p99 ≤ 10 ms.
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { PRICES_FILE } from "../src/db/open.ts";
import { ensureNational } from "./national.ts";
import { popularBarcodes } from "./lib/national-build.ts";
import { BENCH_ENV, createBenchKey } from "./lib/bench-key.ts";
import { runLoadgen, startApi, startBare, type CpuShare, type ServerProcess } from "./lib/processes.ts";
import { flag, numberOption } from "./lib/args.ts";
import { int, ms, summarize } from "./lib/stats.ts";
import { machineLine, table, writeSection } from "./lib/results.ts";
import type { LoadPlan, LoadReport, RequestKind } from "./loadgen.ts";

export interface HttpBenchOptions {
  scale: number;
  seconds: number;
  connections: number;
  record: boolean;
}

interface Row {
  name: string;
  report: LoadReport;
  cpu: CpuShare | null;
}

/** Catalog page paths of a chain, walked with the server's own cursors. */
export async function catalogPaths(api: ServerProcess, key: string, chain: string, pages: number): Promise<string[]> {
  const paths: string[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < pages; i++) {
    const path: string = `/api/v1/chains/${chain}/catalog/?limit=20${cursor ? `&cursor=${cursor}` : ""}`;
    paths.push(path);
    const res = await fetch(api.url + path, { headers: { "x-api-key": key } });
    if (res.status !== 200) throw new Error(`catalog setup: ${res.status} ${await res.text()}`);
    const body = (await res.json()) as { meta: { next_cursor: string | null } };
    cursor = body.meta.next_cursor;
    if (!cursor) break;
  }
  return paths;
}

/** First requests for barcodes nobody asked for yet (the cache-miss path), one at a time. */
async function coldRequests(api: ServerProcess, key: string, barcodes: string[]): Promise<string> {
  const figures: string[] = [];
  for (const [label, suffix] of [["chain granularity", ""], ["store granularity", "&granularity=store"]] as const) {
    const times: number[] = [];
    for (const barcode of barcodes) {
      const started = performance.now();
      const res = await fetch(`${api.url}/api/v1/prices/?barcode=${barcode}${suffix}`, { headers: { "x-api-key": key } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`cold request: ${res.status}`);
      times.push(performance.now() - started);
    }
    const s = summarize(times);
    figures.push(`${label} p50 ${ms(s.p50)} ms, p99 ${ms(s.p99)} ms`);
  }
  return `${figures.join("; ")} (${barcodes.length} of the most widely sold barcodes, one connection)`;
}

export async function httpBench(options: HttpBenchOptions): Promise<{ rows: Row[]; pass: boolean; markdown: string }> {
  const dataDir = ensureNational(options.scale);
  const key = createBenchKey(dataDir, "http-bench");
  const db = new Database(join(dataDir, PRICES_FILE));
  const barcodes = popularBarcodes(db, 500);
  const biggest = (db.query("SELECT c.slug FROM stores s JOIN chains c ON c.id = s.chain_id GROUP BY c.slug ORDER BY count(*) DESC LIMIT 1").get() as { slug: string }).slug;
  const city = (db.query("SELECT city FROM stores GROUP BY city ORDER BY count(*) DESC LIMIT 1").get() as { city: string }).city;
  const stores = (db.query("SELECT count(*) AS n FROM stores").get() as { n: number }).n;
  db.close();

  const rows: Row[] = [];
  /** A warm-up run (every path once, then some), then the measured run. */
  const measure = async (name: string, server: ServerProcess, kinds: RequestKind[]) => {
    const base: LoadPlan = { baseUrl: server.url, kinds, concurrency: options.connections, headers: { "x-api-key": key } };
    await runLoadgen({ ...base, warmupRequests: 1, maxRequests: 2000 });
    const { report, cpu } = await runLoadgen({ ...base, durationS: options.seconds }, { serverPid: server.pid });
    rows.push({ name, report, cpu });
    if (report.errors > 0) console.error(`[http] ${name}: ${report.errors} errors, e.g. ${report.firstErrors.slice(0, 3).join(" | ")}`);
  };

  const bare = await startBare();
  try {
    await measure("bare Bun.serve, small JSON (≈150 B)", bare, [{ name: "bare", weight: 1, paths: ["/small"] }]);
    await measure("bare Bun.serve, answer-sized JSON (≈11 KB)", bare, [{ name: "bare", weight: 1, paths: ["/answer"] }]);
  } finally {
    await bare.stop();
  }

  const api = await startApi(dataDir, BENCH_ENV);
  let rss = NaN;
  let cold = "";
  try {
    cold = await coldRequests(api, key, barcodes.slice(0, 100));
    const pages = await catalogPaths(api, key, biggest, 200);
    const cityParam = encodeURIComponent(city);
    await measure("prices, chain granularity", api, [{ name: "chain", weight: 1, paths: barcodes.map((b) => `/api/v1/prices/?barcode=${b}`) }]);
    await measure("prices, chain granularity, gzip not accepted (Accept-Encoding: identity)", api, [
      { name: "chain-identity", weight: 1, paths: barcodes.map((b) => `/api/v1/prices/?barcode=${b}`), headers: { "accept-encoding": "identity" } },
    ]);
    await measure(`prices, store granularity, city=${city}`, api, [
      { name: "store-city", weight: 1, paths: barcodes.map((b) => `/api/v1/prices/?barcode=${b}&granularity=store&city=${cityParam}`) },
    ]);
    await measure(`prices, store granularity, all stores (answers up to ${int(stores)} entries, ≈0.8 MB)`, api, [
      { name: "store", weight: 1, paths: barcodes.map((b) => `/api/v1/prices/?barcode=${b}&granularity=store`) },
    ]);
    await measure(`catalog (${biggest}, ${pages.length} pages of 20)`, api, [{ name: "catalog", weight: 1, paths: pages }]);
    rss = api.memory().peak;
  } finally {
    await api.stop();
  }

  const bareSmall = rows[0]!.report.requestsPerSecond;
  const bareAnswer = rows[1]!.report.requestsPerSecond;
  const chain = rows[2]!.report;
  const ratio = chain.requestsPerSecond / bareSmall;
  const ratioSameSize = chain.requestsPerSecond / bareAnswer;
  const identity = rows[3]!.report;
  const pass = ratio >= 0.35 && chain.latency.p99 <= 10 && chain.errors === 0;
  const pct = (x: number) => `${(x * 100).toFixed(0)} %`;
  const cores = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? "–" : x.toFixed(2));
  const markdown = [
    machineLine(`scale ${options.scale}, ${options.connections} connections (closed loop), ${options.seconds} s per row`),
    "",
    table(
      ["workload", "req/s", "vs bare small", "vs bare 11 KB", "p50 ms", "p95 ms", "p99 ms", "max ms", "errors", "server µs CPU/req", "CPU: server / loadgen / other (cores)"],
      rows.map(({ name, report, cpu }) => [
        name,
        int(report.requestsPerSecond),
        pct(report.requestsPerSecond / bareSmall),
        pct(report.requestsPerSecond / bareAnswer),
        ms(report.latency.p50),
        ms(report.latency.p95),
        ms(report.latency.p99),
        ms(report.latency.max),
        String(report.errors),
        cpu ? int(cpu.serverUsPerRequest) : "–",
        cpu ? `${cores(cpu.server)} / ${cores(cpu.loadgen)} / ${cores(cpu.other)}` : "–",
      ]),
    ),
    "",
    `The load generator is Bun's fetch, which asks for gzip as browsers and HTTP libraries do (\`Accept-Encoding: gzip, deflate, br, zstd\`) ` +
      `and inflates the answers; the server gzips cached answers of 1 KB or more (their data deflated once per answer, see src/http/gzip-answer.ts), ` +
      `the bare baseline never compresses. One row asks for identity to show the uncompressed path. ` +
      `Prices requests pick at random among the 500 most widely sold barcodes, each after one warm-up pass over all paths; ` +
      `the catalog walks the first pages of the biggest chain with the server's own cursors. ` +
      `Uncached (first request for a barcode after an import): ${cold}. "other" is CPU used by processes outside the bench (a shared 2-core machine).`,
    "",
    `Target (prices at chain granularity ≥ 35 % of bare req/s, p99 ≤ 10 ms): **${pass ? "met" : "not met"}** — ` +
      `${pct(ratio)} of the small-JSON baseline, ${pct(ratioSameSize)} of the same-size baseline, p99 ${ms(chain.latency.p99)} ms ` +
      `(without gzip: ${pct(identity.requestsPerSecond / bareSmall)}, p99 ${ms(identity.latency.p99)} ms). Server peak RSS ${int(rss / 2 ** 20)} MiB.`,
  ].join("\n");
  if (options.record) writeSection("HTTP", markdown);
  return { rows, pass, markdown };
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const quick = flag(args, "quick");
  const { markdown } = await httpBench({
    scale: numberOption(args, "scale", quick ? 0.05 : 1),
    seconds: numberOption(args, "seconds", quick ? 3 : 15),
    connections: numberOption(args, "connections", 50),
    record: flag(args, "record") || !quick,
  });
  console.log(markdown);
}
