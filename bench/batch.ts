/**
 * Batch prices speed (issue 25): a batch of 100 distinct products at chain granularity
 * (`POST /api/v1/prices/batch/`) against a single `GET /api/v1/prices/?barcode=` call, on the real
 * server, one connection, in the same run:
 *   cold  every product asked for the first time at this data version (the answers are computed:
 *         what a client sees just after an import): single calls and batches over disjoint sets of
 *         products of the same popularity, timed one after the other by this process;
 *   warm  answers already computed (the steady state of a serving process), driven by wrk (one
 *         connection, a fixed time; gzip accepted, as clients do — wrk times the whole answer
 *         without inflating it, so the figure is the server's and the transfer's, not the client's).
 * The batch answers each item with /prices/' own cached answer; warm, it should cost far less than
 * 100 calls. Data: the synthetic national database (`--data national`, default; `--scale`) or the
 * embedded demo data (`--data demo`: a data dir first-started in demo mode, kept under .bench-data/).
 *
 *   bun bench/batch.ts [--data national|demo] [--scale 0.25] [--seconds 10] [--quick] [--record] [--no-write]
 *
 * Target: a batch of 100 under 5× a single call (warm, p50 and p90). Full runs record figures in
 * bench/RESULTS.md under "## Batch prices" (national) or "## Batch prices, demo data".
 */
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { PRICES_FILE } from "../src/db/open.ts";
import { BENCH_DATA, ensureNational } from "./national.ts";
import { BENCH_ENV, createBenchKey } from "./lib/bench-key.ts";
import { startApi, type CpuShare, type ServerProcess } from "./lib/processes.ts";
import { findWrk, runWrk } from "./lib/wrk.ts";
import { flag, numberOption, option } from "./lib/args.ts";
import { seeded } from "./lib/rng.ts";
import { int, ms, percentile, summarize, type LatencySummary } from "./lib/stats.ts";
import { machineLine, table, writeSection } from "./lib/results.ts";

interface Row {
  name: string;
  latency: Pick<LatencySummary, "p50" | "p99" | "max"> & { p90: number };
  requestsPerSecond: number;
  errors: number;
  cpu: CpuShare | null;
}

const BATCH = 100;

/** Batches of 100 distinct products drawn from `barcodes`, popular ones more often. */
function makeBatches(barcodes: string[], count: number, size: number, seed: number): string[] {
  const rnd = seeded(seed);
  const out: string[] = [];
  for (let b = 0; b < count; b++) {
    const chosen = new Set<string>();
    while (chosen.size < Math.min(size, barcodes.length)) chosen.add(barcodes[Math.floor(Math.pow(rnd(), 1.6) * barcodes.length)]!);
    out.push(batchBody([...chosen]));
  }
  return out;
}

const batchBody = (barcodes: string[]) => JSON.stringify({ items: barcodes.map((barcode) => ({ barcode })), granularity: "chain" });

/**
 * The demo data's data dir (first-started once in demo mode, as `npm start` does, then reused):
 * the products a client of the demo can ask for.
 */
async function ensureDemo(): Promise<string> {
  const dataDir = join(BENCH_DATA, "demo");
  mkdirSync(dataDir, { recursive: true });
  if (existsSync(join(dataDir, PRICES_FILE))) {
    const db = new Database(join(dataDir, PRICES_FILE), { readonly: true });
    const version = Number((db.query("SELECT value FROM meta WHERE key = 'data_version'").get() as { value: string } | null)?.value ?? 0);
    db.close();
    if (version > 0) return dataDir;
  }
  console.error("[batch] first start of the demo data (once)");
  const api = await startApi(dataDir, BENCH_ENV);
  await api.stop();
  return dataDir;
}

/** Products with a shared GTIN (asked by barcode alone) sold somewhere, most widely sold first. */
function pricedBarcodes(db: Database, count: number): string[] {
  return (
    db
      .query(
        `SELECT p.barcode FROM products p JOIN (SELECT product_id, count(*) AS n FROM price_current GROUP BY product_id) c ON c.product_id = p.id
          WHERE p.scope_chain_id = 0 ORDER BY c.n DESC, p.id LIMIT ?`,
      )
      .all(count) as { barcode: string }[]
  ).map((r) => r.barcode);
}

/** p50, p90, p99 and max of samples, ms. */
function withP90(samples: number[]): Row["latency"] {
  const sorted = Float64Array.from(samples).sort();
  return { ...summarize(samples), p90: percentile(sorted, 90) };
}

/** Times requests one after the other (one connection), ms each. */
async function timeEach(url: string, requests: { path: string; body?: string }[], key: string): Promise<{ samples: number[]; errors: number }> {
  const samples: number[] = [];
  let errors = 0;
  for (const r of requests) {
    const started = performance.now();
    const res = await fetch(url + r.path, {
      method: r.body ? "POST" : "GET",
      headers: { "x-api-key": key, "content-type": "application/json", "accept-encoding": "gzip" },
      body: r.body,
    });
    await res.arrayBuffer();
    samples.push(performance.now() - started);
    if (res.status !== 200) errors++;
  }
  return { samples, errors };
}

export async function batchBench(options: { data: "national" | "demo"; scale: number; seconds: number; coldBatches: number; record: boolean }) {
  const dataDir = options.data === "demo" ? await ensureDemo() : ensureNational(options.scale);
  const key = createBenchKey(dataDir, "batch-bench");
  const db = new Database(join(dataDir, PRICES_FILE), { readonly: true });
  const priced = pricedBarcodes(db, 30_000);
  db.close();
  // Warm: the 2,000 first products (or a third of the demo's). Cold: the others, every 11th for
  // single calls and the rest for batches, so both ask for products of the same popularity.
  const warmCount = Math.min(2000, Math.floor(priced.length / 3));
  const warm = priced.slice(0, warmCount);
  const coldPool = priced.slice(warmCount);
  const coldSingles = coldPool.filter((_, i) => i % 11 === 0);
  const coldBatchItems = coldPool.filter((_, i) => i % 11 !== 0);
  const coldBatches = Math.min(options.coldBatches, Math.floor(coldBatchItems.length / BATCH), Math.floor(coldSingles.length / 10));
  if (coldBatches < 3) throw new Error(`only ${coldPool.length} products beyond the warm set: too few for cold batches`);

  const found = findWrk();
  if ("skip" in found) throw new Error(`batch bench: ${found.skip}`);
  const wrk = found.path;
  const rows: Row[] = [];
  const api: ServerProcess = await startApi(dataDir, BENCH_ENV);
  const headers = { "x-api-key": key, "content-type": "application/json", "accept-encoding": "gzip" };
  const measure = async (name: string, requests: { path: string; body?: string }[]) => {
    // A first pass computes the answers (as a serving process has them after its first requests).
    await timeEach(api.url, requests, key);
    const bodies = requests.flatMap((r) => (r.body ? [r.body] : []));
    const plan = { baseUrl: api.url, paths: bodies.length > 0 ? [requests[0]!.path] : requests.map((r) => r.path), bodies, headers, connections: 1, seconds: options.seconds };
    const { report, cpu } = await runWrk(wrk, plan, api.pid);
    rows.push({ name, latency: report.latency, requestsPerSecond: report.requestsPerSecond, errors: report.errors, cpu });
  };
  try {
    // Cold first, in rounds of 10 single calls then one batch, so both meet the same machine.
    const coldSingle: number[] = [];
    const coldBatch: number[] = [];
    const coldErrors = { single: 0, batch: 0 };
    for (let i = 0; i < coldBatches; i++) {
      const s = await timeEach(api.url, coldSingles.slice(i * 10, (i + 1) * 10).map((b) => ({ path: `/api/v1/prices/?barcode=${b}` })), key);
      const b = await timeEach(api.url, [{ path: "/api/v1/prices/batch/", body: batchBody(coldBatchItems.slice(i * BATCH, (i + 1) * BATCH)) }], key);
      coldSingle.push(...s.samples);
      coldBatch.push(...b.samples);
      coldErrors.single += s.errors;
      coldErrors.batch += b.errors;
    }
    rows.push({ name: `cold: single GET /prices/?barcode= (chain), ${int(coldSingle.length)} products`, latency: withP90(coldSingle), requestsPerSecond: NaN, errors: coldErrors.single, cpu: null });
    rows.push({ name: `cold: POST /prices/batch/, ${coldBatches} batches of ${BATCH} products (chain)`, latency: withP90(coldBatch), requestsPerSecond: NaN, errors: coldErrors.batch, cpu: null });
    await measure(`warm: single GET /prices/?barcode= (chain), ${int(warm.length)} products`, warm.map((b) => ({ path: `/api/v1/prices/?barcode=${b}` })));
    await measure(
      `warm: POST /prices/batch/, ${BATCH} distinct products (chain)`,
      makeBatches(warm, 100, BATCH, 1).map((body) => ({ path: "/api/v1/prices/batch/", body })),
    );
  } finally {
    await api.stop();
  }

  const [coldSingle, coldBatch, warmSingle, warmBatch] = rows.map((r) => r.latency) as [Row["latency"], Row["latency"], Row["latency"], Row["latency"]];
  const ratio = (a: number, b: number) => (a / b).toFixed(2);
  const warmP50 = warmBatch.p50 / warmSingle.p50;
  const warmP90 = warmBatch.p90 / warmSingle.p90;
  const pass = warmP50 < 5 && warmP90 < 5 && rows.every((r) => r.errors === 0);
  const load = (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");
  const data = options.data === "demo" ? "the demo data" : `synthetic national data, scale ${options.scale}`;
  const markdown = [
    machineLine(`${data}, ${priced.length.toLocaleString("en")} priced products, one connection, warm rows ${options.seconds} s each; load average at the end ${load}`),
    "",
    table(
      ["workload", "requests/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "errors", "server ms CPU/request", "CPU: server / wrk / other (cores)"],
      rows.map(({ name, latency, requestsPerSecond, errors, cpu }) => [
        name,
        int(requestsPerSecond),
        ms(latency.p50),
        ms(latency.p90),
        ms(latency.p99),
        ms(latency.max),
        String(errors),
        cpu ? (cpu.serverUsPerRequest / 1000).toFixed(2) : "–",
        cpu ? `${cpu.server.toFixed(2)} / ${cpu.loadgen.toFixed(2)} / ${cpu.other.toFixed(2)}` : "–",
      ]),
    ),
    "",
    `**Warm** (answers computed, the steady state): a batch of ${BATCH} takes **${warmP50.toFixed(2)}×** a single call at p50 and **${warmP90.toFixed(2)}×** at p90 ` +
      `(baseline: the single /prices/ call, measured in the same run), ${((BATCH * warmSingle.p50) / warmBatch.p50).toFixed(0)}× less than ${BATCH} separate calls. ` +
      `**Cold** (every product asked for the first time at this data version, as just after an import; ${ratio(coldBatch.p50, coldSingle.p50)}× a cold single call at p50): ` +
      `${(coldBatch.p50 / BATCH).toFixed(2)} ms per product in a batch against ${ms(coldSingle.p50)} ms for one product alone — each answer is computed as /prices/ computes it ` +
      "(reading the product's price rows, about 60–500 stores each here), then cached for both.",
    "",
    `Target (a batch of ${BATCH} at chain granularity under 5× a single /prices/ call, warm, p50 and p90): **${pass ? "met" : "not met"}**.`,
  ].join("\n");
  if (options.record) writeSection(options.data === "demo" ? "Batch prices, demo data" : "Batch prices", markdown);
  return { rows, pass, markdown };
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const quick = flag(args, "quick");
  const data = option(args, "data") ?? "national";
  if (data !== "national" && data !== "demo") throw new Error("--data: national or demo");
  const { markdown } = await batchBench({
    data,
    scale: numberOption(args, "scale", quick ? 0.05 : 0.25),
    seconds: numberOption(args, "seconds", quick ? 3 : 10),
    coldBatches: numberOption(args, "cold-batches", quick ? 5 : 20),
    record: !flag(args, "no-write") && (flag(args, "record") || !quick),
  });
  console.log(markdown);
}
