/**
 * Basket comparison speed (issue 8, "Speed"): 100-item baskets POSTed to the real server on the
 * synthetic national database, from bench/loadgen.ts in a separate process. Chain-wide pricing
 * (the default) and city pricing (every store of the city priced exactly), at 1 and 4
 * connections. Baseline in the same run: the bare Bun.serve JSON endpoint at the same concurrency.
 *
 *   bun bench/basket.ts [--scale 1] [--seconds 10] [--quick] [--record]
 *
 * Target: p95 ≤ 25 ms. Full runs record figures in bench/RESULTS.md under "## Basket".
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { PRICES_FILE } from "../src/db/open.ts";
import { ensureNational } from "./national.ts";
import { popularBarcodes } from "./lib/national-build.ts";
import { BENCH_ENV, createBenchKey } from "./lib/bench-key.ts";
import { runLoadgen, startApi, startBare, type CpuShare, type ServerProcess } from "./lib/processes.ts";
import { flag, numberOption } from "./lib/args.ts";
import { seeded } from "./lib/rng.ts";
import { int, ms, summarize } from "./lib/stats.ts";
import { machineLine, table, writeSection } from "./lib/results.ts";
import type { LoadReport } from "./loadgen.ts";

export interface BasketBenchOptions {
  scale: number;
  seconds: number;
  record: boolean;
}

/** Shopping lists: 100 distinct products, popular ones more often, quantities 1–6 (some multi-buy sized). */
export function makeBaskets(barcodes: string[], count: number, size: number, seed: number, city?: string): string[] {
  const rnd = seeded(seed);
  const out: string[] = [];
  for (let b = 0; b < count; b++) {
    const chosen = new Set<string>();
    while (chosen.size < Math.min(size, barcodes.length)) chosen.add(barcodes[Math.floor(Math.pow(rnd(), 1.6) * barcodes.length)]!);
    const items = [...chosen].map((barcode) => ({ barcode, quantity: 1 + Math.floor(Math.pow(rnd(), 2) * 6) }));
    out.push(JSON.stringify(city ? { items, city } : { items }));
  }
  return out;
}

interface Row {
  name: string;
  report: LoadReport;
  cpu: CpuShare | null;
}

/** The first baskets after start (caches empty), one at a time. */
async function coldBaskets(api: ServerProcess, key: string, bodies: string[]): Promise<string> {
  const times: number[] = [];
  for (const body of bodies) {
    const started = performance.now();
    const res = await fetch(`${api.url}/api/v1/basket/compare/`, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`basket: ${res.status}`);
    times.push(performance.now() - started);
  }
  const s = summarize(times);
  return `first ${bodies.length} chain-wide baskets after start: p50 ${ms(s.p50)} ms, p95 ${ms(s.p95)} ms, max ${ms(s.max)} ms`;
}

export async function basketBench(options: BasketBenchOptions): Promise<{ rows: Row[]; pass: boolean; markdown: string }> {
  const dataDir = ensureNational(options.scale);
  const key = createBenchKey(dataDir, "basket-bench");
  const db = new Database(join(dataDir, PRICES_FILE));
  const barcodes = popularBarcodes(db, 5000);
  const cities = db.query("SELECT city, count(*) AS n FROM stores WHERE city <> 'אילת' GROUP BY city ORDER BY n DESC").all() as { city: string; n: number }[];
  db.close();
  const biggest = cities[0]!;
  const middle = cities[Math.floor(cities.length / 4)]!;

  const headers = { "x-api-key": key, "content-type": "application/json" };
  const rows: Row[] = [];
  const measure = async (name: string, server: ServerProcess, bodies: string[], concurrency: number, path = "/api/v1/basket/compare/") => {
    const kinds = [{ name, weight: 1, method: "POST" as const, paths: [path], bodies }];
    await runLoadgen({ baseUrl: server.url, kinds, concurrency, maxRequests: Math.min(200, bodies.length), headers });
    const { report, cpu } = await runLoadgen({ baseUrl: server.url, kinds, concurrency, durationS: options.seconds, headers }, { serverPid: server.pid });
    rows.push({ name, report, cpu });
    if (report.errors > 0) console.error(`[basket] ${name}: ${report.errors} errors, e.g. ${report.firstErrors.slice(0, 3).join(" | ")}`);
  };

  const bare = await startBare();
  try {
    await measure("bare Bun.serve JSON (baseline), 1 connection", bare, ["{}"], 1, "/answer");
  } finally {
    await bare.stop();
  }

  const api = await startApi(dataDir, BENCH_ENV);
  let cold = "";
  try {
    cold = await coldBaskets(api, key, makeBaskets(barcodes, 20, 100, 7));
    const chainWide = makeBaskets(barcodes, 500, 100, 1);
    await measure("100 items, chain-wide, 1 connection", api, chainWide, 1);
    await measure("100 items, chain-wide, 4 connections", api, chainWide, 4);
    await measure(`100 items, city=${biggest.city} (${biggest.n} stores), 1 connection`, api, makeBaskets(barcodes, 300, 100, 2, biggest.city), 1);
    await measure(`100 items, city=${middle.city} (${middle.n} stores), 1 connection`, api, makeBaskets(barcodes, 300, 100, 3, middle.city), 1);
  } finally {
    await api.stop();
  }

  const chain1 = rows[1]!.report;
  const pass = chain1.latency.p95 <= 25 && chain1.errors === 0;
  const markdown = [
    machineLine(`scale ${options.scale}, ${options.seconds} s per row, baskets of 100 distinct products drawn from the 5,000 most widely sold`),
    "",
    table(
      ["workload", "baskets/s", "p50 ms", "p95 ms", "p99 ms", "max ms", "errors", "server ms CPU/basket", "CPU: server / loadgen / other (cores)"],
      rows.map(({ name, report, cpu }) => [
        name,
        int(report.requestsPerSecond),
        ms(report.latency.p50),
        ms(report.latency.p95),
        ms(report.latency.p99),
        ms(report.latency.max),
        String(report.errors),
        cpu ? (cpu.serverUsPerRequest / 1000).toFixed(2) : "–",
        cpu ? `${cpu.server.toFixed(2)} / ${cpu.loadgen.toFixed(2)} / ${cpu.other.toFixed(2)}` : "–",
      ]),
    ),
    "",
    `Chain-wide pricing reads each item's chain figures and promotions (cached per data version after first use); ` +
      `city pricing prices every store of the city exactly (${biggest.n} stores × 100 items = ${int(biggest.n * 100)} price lookups for ${biggest.city}). ` +
      `Cold start: ${cold}.`,
    "",
    `Target (100-item basket p95 ≤ 25 ms, chain-wide, one connection): **${pass ? "met" : "not met"}** (p95 ${ms(chain1.latency.p95)} ms).`,
  ].join("\n");
  if (options.record) writeSection("Basket", markdown);
  return { rows, pass, markdown };
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const quick = flag(args, "quick");
  const { markdown } = await basketBench({
    scale: numberOption(args, "scale", quick ? 0.05 : 1),
    seconds: numberOption(args, "seconds", quick ? 3 : 10),
    record: flag(args, "record") || !quick,
  });
  console.log(markdown);
}
