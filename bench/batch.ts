/**
 * Batch prices speed (issue 25): a batch of 100 products at chain granularity
 * (`POST /api/v1/prices/batch/`) against single `GET /api/v1/prices/?barcode=` calls, on the real
 * server and the synthetic national database, from bench/loadgen.ts in a separate process, one
 * connection each, warm (after a first pass: the steady state of a serving process). The batch
 * answers each item with /prices/' own cached answer, so it should cost far less than 100 calls.
 *
 *   bun bench/batch.ts [--scale 0.25] [--seconds 10] [--quick] [--record]
 *
 * Target: a batch of 100 under 5× a single call (p50 and p95). Full runs record figures in
 * bench/RESULTS.md under "## Batch prices".
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { PRICES_FILE } from "../src/db/open.ts";
import { ensureNational } from "./national.ts";
import { popularBarcodes } from "./lib/national-build.ts";
import { BENCH_ENV, createBenchKey } from "./lib/bench-key.ts";
import { runLoadgen, startApi, type CpuShare, type ServerProcess } from "./lib/processes.ts";
import { flag, numberOption } from "./lib/args.ts";
import { seeded } from "./lib/rng.ts";
import { int, ms } from "./lib/stats.ts";
import { machineLine, table, writeSection } from "./lib/results.ts";
import type { LoadReport } from "./loadgen.ts";

interface Row {
  name: string;
  report: LoadReport;
  cpu: CpuShare | null;
}

/** Batches of 100 distinct products drawn from `barcodes`, popular ones more often. */
function makeBatches(barcodes: string[], count: number, size: number, seed: number): string[] {
  const rnd = seeded(seed);
  const out: string[] = [];
  for (let b = 0; b < count; b++) {
    const chosen = new Set<string>();
    while (chosen.size < Math.min(size, barcodes.length)) chosen.add(barcodes[Math.floor(Math.pow(rnd(), 1.6) * barcodes.length)]!);
    out.push(JSON.stringify({ items: [...chosen].map((barcode) => ({ barcode })), granularity: "chain" }));
  }
  return out;
}

export async function batchBench(options: { scale: number; seconds: number; record: boolean }) {
  const dataDir = ensureNational(options.scale);
  const key = createBenchKey(dataDir, "batch-bench");
  const db = new Database(join(dataDir, PRICES_FILE));
  const barcodes = popularBarcodes(db, 2000);
  db.close();

  const rows: Row[] = [];
  const api: ServerProcess = await startApi(dataDir, BENCH_ENV);
  const measure = async (name: string, kind: { method: "GET" | "POST"; paths: string[]; bodies?: string[] }) => {
    const headers = { "x-api-key": key, "content-type": "application/json" };
    const kinds = [{ name, weight: 1, ...kind }];
    // A first pass computes the answers (as a serving process has them after its first requests).
    await runLoadgen({ baseUrl: api.url, kinds, concurrency: 1, maxRequests: kind.bodies ? kind.bodies.length : kind.paths.length, headers });
    const { report, cpu } = await runLoadgen({ baseUrl: api.url, kinds, concurrency: 1, durationS: options.seconds, headers }, { serverPid: api.pid });
    rows.push({ name, report, cpu });
    if (report.errors > 0) console.error(`[batch] ${name}: ${report.errors} errors, e.g. ${report.firstErrors.slice(0, 3).join(" | ")}`);
  };
  try {
    await measure("single GET /prices/?barcode= (chain), 1 connection", { method: "GET", paths: barcodes.map((b) => `/api/v1/prices/?barcode=${b}`) });
    await measure("POST /prices/batch/, 100 items (chain), 1 connection", {
      method: "POST",
      paths: ["/api/v1/prices/batch/"],
      bodies: makeBatches(barcodes, 100, 100, 1),
    });
  } finally {
    await api.stop();
  }

  const single = rows[0]!.report.latency;
  const batch = rows[1]!.report.latency;
  const ratioP50 = batch.p50 / single.p50;
  const ratioP95 = batch.p95 / single.p95;
  const pass = ratioP50 < 5 && ratioP95 < 5 && rows.every((r) => r.report.errors === 0);
  const markdown = [
    machineLine(`scale ${options.scale}, ${options.seconds} s per row, batches of 100 distinct products drawn from the 2,000 most widely sold, warm`),
    "",
    table(
      ["workload", "requests/s", "p50 ms", "p95 ms", "p99 ms", "max ms", "errors", "server ms CPU/request", "CPU: server / loadgen / other (cores)"],
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
    `A batch of 100 takes **${ratioP50.toFixed(2)}×** a single call at p50 and **${ratioP95.toFixed(2)}×** at p95 (baseline: the single /prices/ call, measured in the same run); ` +
      `per product that is ${((100 * single.p50) / batch.p50).toFixed(0)}× cheaper than 100 separate calls at p50.`,
    "",
    `Target (a batch of 100 at chain granularity under 5× a single /prices/ call): **${pass ? "met" : "not met"}**.`,
  ].join("\n");
  if (options.record) writeSection("Batch prices", markdown);
  return { rows, pass, markdown };
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const quick = flag(args, "quick");
  const { markdown } = await batchBench({
    scale: numberOption(args, "scale", quick ? 0.05 : 0.25),
    seconds: numberOption(args, "seconds", quick ? 3 : 10),
    record: flag(args, "record") || !quick,
  });
  console.log(markdown);
}
