/**
 * Store-granularity /prices/ answers without filters at national size (issue 46, "The heavy
 * answers"): the real server on the synthetic national database (bench/national.ts).
 *
 *   bun bench/store-answers.ts [--scale 1] [--seconds 15] [--cold 20] [--record]
 *
 * (a) First answers: for `--cold` barcodes no one asked yet, the chain answer then the store answer
 *     of the same barcode, one at a time (gzip accepted, as clients ask); the ratio of their
 *     medians. Target ≤ 10×.
 * (b) Under load: the Bun load generator (bench/loadgen.ts, 50 connections) round robin over the
 *     500 most widely sold products' store answers (every one asked once first); server CPU per
 *     answer. Target ≤ 1 ms. Also the server's peak RSS (the issue's bound: 1.5 GiB).
 *
 * Full runs (--record) record their figures in bench/RESULTS.md under "## Store answers".
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { PRICES_FILE } from "../src/db/open.ts";
import { ensureNational } from "./national.ts";
import { popularBarcodes } from "./lib/national-build.ts";
import { BENCH_ENV, createLiveBenchKey } from "./lib/bench-key.ts";
import { cpuSeconds, runLoadgen, startApi } from "./lib/processes.ts";
import { flag, numberOption } from "./lib/args.ts";
import { int, ms, summarize } from "./lib/stats.ts";
import { machineLine, table, writeSection } from "./lib/results.ts";
import { allocatorEnv, allocatorNote } from "./lib/allocator.ts";

const args = process.argv.slice(2);
const scale = numberOption(args, "scale", 1);
const seconds = numberOption(args, "seconds", 15);
const coldCount = numberOption(args, "cold", 20);
const POPULAR = 500;
const CONNECTIONS = 50;

const dataDir = ensureNational(scale);
const key = createLiveBenchKey(dataDir, "store-answers-bench");
const db = new Database(join(dataDir, PRICES_FILE), { readonly: true });
// The first 500 are the load's; the next ones are asked for the first time in (a).
const all = popularBarcodes(db, POPULAR + coldCount);
const stores = (db.query("SELECT count(*) AS n FROM stores").get() as { n: number }).n;
db.close();
const popular = all.slice(0, POPULAR);
const cold = all.slice(POPULAR);

const launchEnv = allocatorEnv();
const api = await startApi(dataDir, { ...BENCH_ENV, ...launchEnv });
try {
  const headers = { "x-api-key": key, "accept-encoding": "gzip" };
  /** One request's client-side time and the server's CPU seconds spent meanwhile (10 ms ticks: summed, not per request). */
  const timed = async (path: string) => {
    const cpu = cpuSeconds(api.pid);
    const started = performance.now();
    const res = await fetch(api.url + path, { headers });
    const bytes = (await res.arrayBuffer()).byteLength;
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    return { ms: performance.now() - started, cpu: cpuSeconds(api.pid) - cpu, bytes };
  };
  // The JIT warmed on other products' answers first (neither these nor the cold ones).
  for (const barcode of popular.slice(0, 10)) {
    await timed(`/api/v1/prices/?barcode=${barcode}`);
    await timed(`/api/v1/prices/?barcode=${barcode}&granularity=store`);
  }
  const chain: number[] = [];
  const store: number[] = [];
  const ratios: number[] = [];
  let chainCpu = 0;
  let storeCpu = 0;
  let storeBytes = 0;
  for (const barcode of cold) {
    const c = await timed(`/api/v1/prices/?barcode=${barcode}`);
    const s = await timed(`/api/v1/prices/?barcode=${barcode}&granularity=store`);
    chain.push(c.ms);
    store.push(s.ms);
    ratios.push(s.ms / c.ms);
    chainCpu += c.cpu;
    storeCpu += s.cpu;
    storeBytes += s.bytes;
  }
  const chainP50 = summarize(chain).p50;
  const storeP50 = summarize(store).p50;
  const firstRatio = storeP50 / chainP50;

  // (b) The popular store answers under load: warm-up (each asked once, then some), then measured.
  const kinds = [{ name: "store", weight: 1, paths: popular.map((b) => `/api/v1/prices/?barcode=${b}&granularity=store`) }];
  const base = { baseUrl: api.url, kinds, concurrency: CONNECTIONS, headers: { "x-api-key": key } };
  await runLoadgen({ ...base, warmupRequests: 1, maxRequests: 2000 });
  const { report, cpu } = await runLoadgen({ ...base, durationS: seconds }, { serverPid: api.pid });
  const rss = api.memory().peak;
  const usPerAnswer = cpu?.serverUsPerRequest ?? NaN;

  const pass = firstRatio <= 10 && usPerAnswer <= 1000 && report.errors === 0;
  const lines = [
    `(a) first answers, ${cold.length} barcodes never asked before, chain then store of each, one connection, gzip: ` +
      `chain p50 ${ms(chainP50)} ms, store p50 ${ms(storeP50)} ms (${int(storeBytes / cold.length / 1024)} KB of JSON, sent gzipped; up to ${int(stores)} entries): ` +
      `store/chain ${firstRatio.toFixed(2)}× (target ≤ 10×; per barcode median ${summarize(ratios).p50.toFixed(2)}×); ` +
      `server CPU ${ms((chainCpu * 1000) / cold.length)} ms per chain answer, ${ms((storeCpu * 1000) / cold.length)} ms per store answer (10 ms ticks, summed).`,
    `(b) ${POPULAR} popular store answers round robin, ${CONNECTIONS} connections, ${seconds} s: ${int(report.requestsPerSecond)} answers/s, ` +
      `p50 ${ms(report.latency.p50)} ms, p99 ${ms(report.latency.p99)} ms, ${report.errors} errors; ` +
      `server CPU per answer ${int(usPerAnswer)} µs (target ≤ 1,000 µs); cores server / loadgen / other ${cpu ? `${cpu.server.toFixed(2)} / ${cpu.loadgen.toFixed(2)} / ${cpu.other.toFixed(2)}` : "–"}.`,
    `Server peak RSS ${int(rss / 2 ** 20)} MiB (issue bound: 1,536 MiB). ${pass ? "Targets met." : "Targets NOT met."}`,
  ];
  for (const line of lines) console.log(line);
  if (flag(args, "record")) {
    writeSection(
      "Store answers",
      [
        machineLine(`national scale ${scale}; ${allocatorNote(launchEnv)}`),
        "",
        table(
          ["measure", "figure", "target"],
          [
            ["first store answer / first chain answer (p50s)", `${firstRatio.toFixed(2)}×`, "≤ 10×"],
            ["server CPU per store answer under load", `${int(usPerAnswer)} µs`, "≤ 1,000 µs"],
            ["store answers/s under load", int(report.requestsPerSecond), ""],
            ["server peak RSS", `${int(rss / 2 ** 20)} MiB`, "≤ 1,536 MiB"],
          ],
        ),
        "",
        ...lines,
      ].join("\n"),
    );
  }
  process.exitCode = pass ? 0 : 1;
} finally {
  await api.stop();
}
