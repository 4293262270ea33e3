/**
 * What the runtime alone costs to send an answer shaped like `GET /api/v1/prices/?barcode=`'s
 * (issue 46: "where a target is missed on one machine, the profile says why"). A bare `Bun.serve`
 * (bench/lib/serve-bare.ts) is taken from the small-JSON baseline to the prices answer's shape one
 * step at a time — its gzip-sized body as bytes, its 12 headers, the client's address, the six
 * request headers the access layer reads, the contract's per-request work written as one function
 * (bench/lib/fused-answer.ts) — then the real server's prices path, all under wrk in
 * the same run, alternating rounds. What the prices path costs above the header reads' step is the
 * app's own work (bench/request-cost.ts measures it without the network); the fused step says what
 * that work costs at least on this runtime, however the code is arranged.
 *
 *   bun bench/runtime-floor.ts [--scale 0.25] [--seconds 5] [--rounds 3] [--no-write] [--quick]
 *
 * `--quick`: one round of 2 s a row, nothing recorded.
 * Figures go to stderr and bench/RESULTS.md (## Runtime floor); wrk is required (Debian package).
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { PRICES_FILE } from "../src/db/open.ts";
import { ensureNational } from "./national.ts";
import { popularBarcodes } from "./lib/national-build.ts";
import { BENCH_ENV, createLiveBenchKey } from "./lib/bench-key.ts";
import { startApi, startBare, type ServerProcess } from "./lib/processes.ts";
import { findWrk, runWrk } from "./lib/wrk.ts";
import { allocatorEnv, allocatorNote } from "./lib/allocator.ts";
import { flag, numberOption } from "./lib/args.ts";
import { machineLine, table, writeSection } from "./lib/results.ts";

const args = process.argv.slice(2);
const scale = numberOption(args, "scale", 0.25);
const quick = flag(args, "quick");
const seconds = numberOption(args, "seconds", quick ? 2 : 5);
const rounds = numberOption(args, "rounds", quick ? 1 : 3);
const say = (msg: string) => console.error(`[runtime-floor] ${msg}`);

const wrk = findWrk();
if (!("path" in wrk)) {
  say(`skipped: ${wrk.skip}`);
  process.exit(0);
}

const dataDir = ensureNational(scale);
const key = createLiveBenchKey(dataDir, "runtime-floor");
const db = new Database(join(dataDir, PRICES_FILE), { readonly: true });
const barcodes = popularBarcodes(db, 500);
db.close();

const env = allocatorEnv();
const bare = await startBare(env);
const api = await startApi(dataDir, { ...BENCH_ENV, ...env });

interface Step {
  name: string;
  server: ServerProcess;
  paths: string[];
  headers: Record<string, string>;
}
// wrk sends these on every request; the bare steps ignore what they do not read.
const headers = { "x-api-key": key, "accept-encoding": "gzip" };
const steps: Step[] = [
  { name: "bare: small JSON (≈150 B, the HTTP bench's baseline)", server: bare, paths: ["/small"], headers },
  { name: "bare: 1,137 bytes (a gzip answer's size)", server: bare, paths: ["/bytes"], headers },
  { name: "bare: + the answer's 12 headers", server: bare, paths: ["/headers"], headers },
  { name: "bare: + the client's address (getpeername)", server: bare, paths: ["/peer"], headers },
  { name: "bare: + six request-header reads", server: bare, paths: ["/reads"], headers },
  { name: "bare: + the contract's per-request work, fused (bench/lib/fused-answer.ts)", server: bare, paths: barcodes.map((b) => `/fused?barcode=${b}`), headers },
  { name: "mehir: prices, chain granularity (gzip, live key)", server: api, paths: barcodes.map((b) => `/api/v1/prices/?barcode=${b}`), headers },
];

const plan = (step: Step, secs: number) => ({ baseUrl: step.server.url, paths: step.paths, headers: step.headers, connections: 50, seconds: secs });
say("warming up: every step 3 s, every barcode's answer cached");
for (const step of steps) await runWrk(wrk.path, plan(step, quick ? 1 : 3), step.server.pid);

const figures = steps.map(() => ({ rps: [] as number[], us: [] as number[], wrk: [] as number[] }));
for (let round = 1; round <= rounds; round++) {
  for (const [i, step] of steps.entries()) {
    const { report, cpu } = await runWrk(wrk.path, plan(step, seconds), step.server.pid);
    figures[i]!.rps.push(report.requestsPerSecond);
    figures[i]!.us.push(cpu.serverUsPerRequest);
    figures[i]!.wrk.push(cpu.loadgen);
    say(`round ${round}: ${step.name}: ${Math.round(report.requestsPerSecond).toLocaleString("en-US")} requests/s, ${cpu.serverUsPerRequest.toFixed(1)} µs server CPU a request`);
  }
}
await api.stop();
await bare.stop();

const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
const baseline = median(figures[0]!.rps);
const floor = median(figures[steps.length - 3]!.us);
const fused = median(figures[steps.length - 2]!.us);
const prices = median(figures[steps.length - 1]!.us);
const rows = steps.map((step, i) => {
  const f = figures[i]!;
  return [
    step.name,
    f.rps.map((r) => Math.round(r).toLocaleString("en-US")).join(", "),
    `${((100 * median(f.rps)) / baseline).toFixed(0)} %`,
    f.us.map((u) => u.toFixed(1)).join(", "),
    f.wrk.map((w) => w.toFixed(2)).join(", "),
  ];
});
const body = [
  machineLine(`scale ${scale}, wrk 1 thread, 50 connections, ${seconds} s per row, ${rounds} rounds alternating; both servers ${allocatorNote(env)}`),
  "",
  table(["step", "requests/s (rounds)", "vs small JSON (median)", "server µs CPU a request (rounds)", "wrk's cores (rounds)"], rows),
  "",
  `The runtime's floor for an answer of this shape (the six request-header reads' step): **${floor.toFixed(1)} µs** of server CPU a request; the prices path: **${prices.toFixed(1)} µs**, ` +
    `so the app's own work under load is ≈ ${(prices - floor).toFixed(1)} µs (keys, rate limit, quota, the cached answer, its meta and validators, metrics, the request log). ` +
    `The same work written as one function on the bare server (the fused step) costs ≈ ${(fused - floor).toFixed(1)} µs above that floor (${fused.toFixed(1)} µs a request, ` +
    `${((100 * median(figures[steps.length - 2]!.rps)) / baseline).toFixed(0)} % of the small JSON's requests/s): what the contract's per-request work costs on this runtime, however the code is arranged. ` +
    "Where wrk's cores read ≥ 0.9 the load generator, not the server, is the limit of that row's requests/s.",
].join("\n");
console.error(body);
if (!flag(args, "no-write") && !quick) {
  writeSection("Runtime floor", body);
  say("written to bench/RESULTS.md (## Runtime floor)");
}
process.exit(0);
