/**
 * HTTP read path under concurrent load (issue 6, "Speed"): the real server on the synthetic
 * national database against a bare `Bun.serve` JSON endpoint, both driven by bench/loadgen.ts
 * in a separate process at 50 connections.
 *
 *   bun bench/http.ts [--scale 1] [--seconds 15] [--rounds 3] [--quick] [--record] [--wrk-only]
 *
 * The target's measure is `wrk` (Debian package; installed with apt-get when absent and run as
 * root, else its rows are skipped with the reason): one thread, 50 connections, against the bare
 * server and the prices path. Both servers are up at once and measured in alternating rounds (bare,
 * then prices, `--rounds` times): this VM's speed moves by up to 2× from one minute to the next, so
 * each round's ratio compares the two servers at the same moment, and the target is judged on the
 * median round. The Bun load generator's rows follow (--wrk-only skips them).
 *
 * Both servers run with the allocator settings the server is deployed with (bench/lib/allocator.ts;
 * the header line says which): the same on both sides. `MIMALLOC_PURGE_HOLES= bun bench/http.ts …`
 * (empty: left out, mimalloc's default) measures both without that one.
 *
 * Full runs (no --quick) record their figures in bench/RESULTS.md under "## HTTP".
 * Targets (under wrk): prices at chain granularity ≥ 0.40× the bare server's requests/s (the median
 * of the rounds' ratios), p99 ≤ 10 ms (in every round).
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { PRICES_FILE } from "../src/db/open.ts";
import { ensureNational } from "./national.ts";
import { popularBarcodes } from "./lib/national-build.ts";
import { BENCH_ENV, createLiveBenchKey } from "./lib/bench-key.ts";
import { runLoadgen, startApi, startBare, type CpuShare, type ServerProcess } from "./lib/processes.ts";
import { flag, numberOption } from "./lib/args.ts";
import { int, ms, summarize } from "./lib/stats.ts";
import { machineLine, table, writeSection } from "./lib/results.ts";
import type { LoadPlan, LoadReport, RequestKind } from "./loadgen.ts";
import { findWrk, runWrk, type WrkReport } from "./lib/wrk.ts";
import { allocatorEnv, allocatorNote } from "./lib/allocator.ts";
import { findStrace, syscallsPerRequest, type SyscallCounts } from "./lib/syscalls.ts";

export interface HttpBenchOptions {
  scale: number;
  seconds: number;
  connections: number;
  record: boolean;
  /** Only the wrk rows (skips the Bun load generator's). */
  wrkOnly?: boolean;
  /** Alternating wrk rounds of the bare server and the prices path (default 3). */
  rounds?: number;
}

/** The allocator settings both servers are started with: as deployed, unless the command line sets them. */
const LAUNCH_ENV = allocatorEnv();

/** The target (issue 46): prices at chain granularity at least this share of the bare server's requests/s under wrk. */
const TARGET_RATIO = 0.4;

/** The system calls per request table (bare beside prices), or why it is missing. */
function syscallMarkdown(strace: { path: string } | { skip: string }, counts: { bare?: SyscallCounts; prices?: SyscallCounts }): string {
  if (!("path" in strace)) return `System calls per request: skipped — ${strace.skip}.`;
  const { bare, prices } = counts;
  if (!bare || !prices) return "System calls per request: not measured (no wrk).";
  const names = [...new Set([...prices.perRequest, ...bare.perRequest].filter(([, n]) => n >= 0.005).map(([name]) => name))];
  const of = (c: SyscallCounts, name: string) => c.perRequest.find(([n]) => n === name)?.[1] ?? 0;
  const total = (c: SyscallCounts) => c.perRequest.reduce((sum, [, n]) => sum + n, 0);
  return [
    table(
      ["system call (strace -c -f, all threads)", "bare Bun.serve, per request", "prices, per request"],
      [...names.map((name) => [name, of(bare, name).toFixed(3), of(prices, name).toFixed(3)]), ["**all**", total(bare).toFixed(2), total(prices).toFixed(2)]],
    ),
    "",
    `One wrk run of 5 s per server with strace attached (${int(bare.requests)} and ${int(prices.requests)} requests; strace slows the calls, so only their counts are read). ` +
      "Calls under 0.005 a request are left out. `futex` and `epoll_pwait2` are the runtime's threads and event loop, `openat`/`read` of `/proc/self/statm` the runtime's own memory reading (both servers); `getpeername` is the client's address for the request log, which Bun.serve reads from the socket on every call (it exposes no connection to remember it by).",
  ].join("\n");
}

/** Seconds of wrk before each measured row. */
const WARM_UP_S = 5;

interface WrkRow {
  name: string;
  report: WrkReport;
  cpu: CpuShare;
  /** The alternating round the row was measured in (1-based), if any. */
  round?: number;
}

/** The middle value (the lower of the two middle ones for an even count). */
const middle = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;

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

export async function httpBench(options: HttpBenchOptions): Promise<{ rows: Row[]; wrkRows: WrkRow[]; pass: boolean; markdown: string }> {
  const dataDir = ensureNational(options.scale);
  // A live key (sk_live_): every answer counted against its quota, as a customer's (BENCH_ENV raises the quota).
  const key = createLiveBenchKey(dataDir, "http-bench");
  const db = new Database(join(dataDir, PRICES_FILE));
  const barcodes = popularBarcodes(db, 500);
  const biggest = (db.query("SELECT c.slug FROM stores s JOIN chains c ON c.id = s.chain_id GROUP BY c.slug ORDER BY count(*) DESC LIMIT 1").get() as { slug: string }).slug;
  const city = (db.query("SELECT city FROM stores GROUP BY city ORDER BY count(*) DESC LIMIT 1").get() as { city: string }).city;
  const stores = (db.query("SELECT count(*) AS n FROM stores").get() as { n: number }).n;
  db.close();

  const rows: Row[] = [];
  const wrk = findWrk();
  const wrkRows: WrkRow[] = [];
  const wrkPlan = (server: ServerProcess, paths: string[], headers: Record<string, string>) => ({
    baseUrl: server.url,
    paths,
    headers: { "x-api-key": key, ...headers },
    connections: options.connections,
  });
  /**
   * Every path once (their answers cached, as the Bun generator's warm-up does), then 5 s of wrk:
   * on a busy 2-core machine the JIT was still compiling the request path after 2 s (its threads
   * took a third of the server's CPU in the first measured seconds).
   */
  const warmWrk = async (server: ServerProcess, paths: string[], headers: Record<string, string> = {}) => {
    if (!("path" in wrk)) return;
    const plan = wrkPlan(server, paths, headers);
    for (let i = 0; i < paths.length; i += 8) {
      await Promise.all(paths.slice(i, i + 8).map(async (path) => (await fetch(server.url + path, { headers: plan.headers })).arrayBuffer()));
    }
    await runWrk(wrk.path, { ...plan, seconds: WARM_UP_S }, server.pid);
  };
  /** One measured run of wrk (one thread, the same connections) on a warmed-up server. */
  const measureWrk = async (name: string, server: ServerProcess, paths: string[], headers: Record<string, string> = {}, round?: number) => {
    if (!("path" in wrk)) return;
    const { report, cpu } = await runWrk(wrk.path, { ...wrkPlan(server, paths, headers), seconds: options.seconds }, server.pid);
    wrkRows.push({ name, report, cpu, ...(round !== undefined ? { round } : {}) });
    if (report.errors > 0) console.error(`[http] wrk ${name}${round !== undefined ? `, round ${round}` : ""}: ${report.errors} errors`);
  };
  /** A warm-up run (every path once, then some), then the measured run. */
  const measure = async (name: string, server: ServerProcess, kinds: RequestKind[]) => {
    if (options.wrkOnly) return;
    const base: LoadPlan = { baseUrl: server.url, kinds, concurrency: options.connections, headers: { "x-api-key": key } };
    await runLoadgen({ ...base, warmupRequests: 1, maxRequests: 2000 });
    const { report, cpu } = await runLoadgen({ ...base, durationS: options.seconds }, { serverPid: server.pid });
    rows.push({ name, report, cpu });
    if (report.errors > 0) console.error(`[http] ${name}: ${report.errors} errors, e.g. ${report.firstErrors.slice(0, 3).join(" | ")}`);
  };

  const rounds = Math.max(1, Math.round(options.rounds ?? 3));
  const BARE_SMALL = "bare Bun.serve, small JSON (≈150 B)";
  const BARE_ANSWER = "bare Bun.serve, answer-sized JSON (≈11 KB)";
  const PRICES_GZIP = "prices, chain granularity (Accept-Encoding: gzip)";
  const PRICES_IDENTITY = "prices, chain granularity (no Accept-Encoding)";
  // Both servers stay up: the wrk rounds alternate between them (the idle one costs nothing).
  const bare = await startBare(LAUNCH_ENV);
  let rss = NaN;
  let cold = "";
  const strace = findStrace();
  const syscalls: { bare?: SyscallCounts; prices?: SyscallCounts } = {};
  try {
    await measure(BARE_SMALL, bare, [{ name: "bare", weight: 1, paths: ["/small"] }]);
    await measure(BARE_ANSWER, bare, [{ name: "bare", weight: 1, paths: ["/answer"] }]);

    // No daily export: written in a worker at the first start on a data dir, it would be counted as
    // the server's CPU while the requests are measured (it took 25 s of CPU at scale 0.25).
    const api = await startApi(dataDir, { ...BENCH_ENV, MEHIR_EXPORTS: "off", ...LAUNCH_ENV });
    try {
      cold = await coldRequests(api, key, barcodes.slice(0, 100));
      const pricePaths = barcodes.map((b) => `/api/v1/prices/?barcode=${b}`);
      const gzip = { "accept-encoding": "gzip" };
      await warmWrk(bare, ["/small"]);
      await warmWrk(api, pricePaths, gzip);
      for (let round = 1; round <= rounds; round++) {
        await measureWrk(BARE_SMALL, bare, ["/small"], {}, round);
        await measureWrk(PRICES_GZIP, api, pricePaths, gzip, round);
      }
      // System calls per request, both servers, one strace'd wrk run each (not a measured row).
      if ("path" in wrk && "path" in strace) {
        syscalls.bare = await syscallsPerRequest(strace.path, wrk.path, { ...wrkPlan(bare, ["/small"], {}), seconds: 5 }, bare.pid);
        syscalls.prices = await syscallsPerRequest(strace.path, wrk.path, { ...wrkPlan(api, pricePaths, gzip), seconds: 5 }, api.pid);
      }
      await warmWrk(bare, ["/answer"]);
      await measureWrk(BARE_ANSWER, bare, ["/answer"]);
      await warmWrk(api, pricePaths);
      await measureWrk(PRICES_IDENTITY, api, pricePaths);
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
  } finally {
    await bare.stop();
  }

  const pct = (x: number) => `${(x * 100).toFixed(0)} %`;
  const cores = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? "–" : x.toFixed(2));
  const other = (cpu: CpuShare | null) => (cpu ? cpu.other : NaN);

  // wrk: the target's measure (an external generator that does not saturate first).
  let wrkMarkdown: string;
  let pass = false;
  if (!("path" in wrk)) {
    wrkMarkdown = `wrk rows skipped: ${wrk.skip}.`;
  } else {
    const inRounds = (name: string) => wrkRows.filter((r) => r.name === name && r.round !== undefined);
    const bareRounds = inRounds(BARE_SMALL);
    const pricesRounds = inRounds(PRICES_GZIP);
    // Each round's ratio: the prices path against the bare server measured just before it.
    const ratios = pricesRounds.map((p, i) => p.report.requestsPerSecond / bareRounds[i]!.report.requestsPerSecond);
    const ratio = middle(ratios);
    const bare = middle(bareRounds.map((r) => r.report.requestsPerSecond));
    const bareAnswer = wrkRows.find((r) => r.name === BARE_ANSWER)!.report.requestsPerSecond;
    const worstP99 = Math.max(...pricesRounds.map((r) => r.report.latency.p99));
    const errors = pricesRounds.reduce((sum, r) => sum + r.report.errors, 0);
    pass = ratio >= TARGET_RATIO && worstP99 <= 10 && errors === 0;
    const wrkSaturated = [...new Set(wrkRows.filter((r) => r.cpu.loadgen >= 0.9).map((r) => r.name))];
    const machineFull = wrkRows.filter((r) => r.cpu.server + r.cpu.loadgen + r.cpu.other >= 1.8 && r.cpu.other >= 0.5).map((r) => r.name);
    const bareUs = middle(bareRounds.map((r) => r.cpu.serverUsPerRequest));
    const pricesUs = middle(pricesRounds.map((r) => r.cpu.serverUsPerRequest));
    // CPU per request is what the other engineers' load distorts least: the capacity ratio on an idle machine.
    const cpuRatio = bareUs / pricesUs;
    // A round's row against that round's bare server; the others against the rounds' middle one.
    const bareOf = (row: WrkRow) => (row.round !== undefined ? bareRounds[row.round - 1]!.report.requestsPerSecond : bare);
    wrkMarkdown = [
      table(
        ["workload (wrk, 1 thread)", "round", "req/s", "vs bare small", "vs bare 11 KB", "p50 ms", "p90 ms", "p99 ms", "max ms", "errors", "server µs CPU/req", "CPU: server / wrk / other (cores)"],
        wrkRows.map((row) => [
          row.name,
          row.round !== undefined ? String(row.round) : "–",
          int(row.report.requestsPerSecond),
          pct(row.report.requestsPerSecond / bareOf(row)),
          pct(row.report.requestsPerSecond / bareAnswer),
          ms(row.report.latency.p50),
          ms(row.report.latency.p90),
          ms(row.report.latency.p99),
          ms(row.report.latency.max),
          String(row.report.errors),
          int(row.cpu.serverUsPerRequest),
          `${cores(row.cpu.server)} / ${cores(row.cpu.loadgen)} / ${cores(row.cpu.other)}`,
        ]),
      ),
      "",
      `wrk ${options.connections} connections, one thread, ${options.seconds} s per row after a warm-up (every path once, then ${WARM_UP_S} s of wrk); ` +
        `both servers up at once, the bare server's small JSON and the prices path with gzip measured in ${rounds} alternating rounds (each round's "vs bare" is against that round's bare row, the other rows' against the rounds' middle one); ` +
        `round robin over the paths (prices: the 500 most widely sold barcodes, a live key (sk_live_): ` +
        `quota counted, rate limit, ETag, metrics and request logging on, as served; the daily export off). wrk does not inflate gzip, so the gzip row is what a browser costs the server. ` +
        (wrkSaturated.length ? `**wrk used ≥ 0.9 of a core in: ${wrkSaturated.join("; ")}** — there the generator, not the server, may be the limit. ` : `wrk stayed under 0.9 of a core in every row. `) +
        (machineFull.length
          ? `**The machine was full** (server + wrk + other processes ≥ 1.8 of 2 cores, others ≥ 0.5) in ${machineFull.length} of ${wrkRows.length} rows: there req/s is the share of the machine the bench got, not capacity; ` +
            `server CPU per request is the figure to compare (rounds' middle: bare ${int(bareUs)} µs, prices ${int(pricesUs)} µs: a capacity ratio of ${cpuRatio.toFixed(2)}×). `
          : `Server CPU per request (rounds' middle): bare ${int(bareUs)} µs, prices ${int(pricesUs)} µs (capacity ratio ${cpuRatio.toFixed(2)}×). `) +
        `"other" is CPU used by processes outside the bench (a machine shared with other engineers' work).`,
      "",
      syscallMarkdown(strace, syscalls),
      "",
      `Target (prices at chain granularity ≥ ${TARGET_RATIO.toFixed(2)}× bare Bun.serve under wrk, p99 ≤ 10 ms): **${pass ? "met" : "not met"}** — ` +
        `${ratio.toFixed(2)}× bare in the middle round (rounds: ${ratios.map((r) => `${r.toFixed(2)}×`).join(", ")}), p99 ${pricesRounds.map((r) => ms(r.report.latency.p99)).join(" / ")} ms` +
        `${errors > 0 ? `, ${errors} errors` : ""}; other processes ${pricesRounds.map((r) => cores(r.cpu.other)).join(" / ")} of 2 cores meanwhile.`,
    ].join("\n");
  }

  let loadgenMarkdown = "";
  if (rows.length > 0) {
    const bareSmall = rows[0]!.report.requestsPerSecond;
    const bareAnswer = rows[1]!.report.requestsPerSecond;
    const chain = rows[2]!.report;
    const identity = rows[3]!.report;
    loadgenMarkdown = [
      "### Bun load generator (bench/loadgen.ts)",
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
          cpu ? `${cores(cpu.server)} / ${cores(cpu.loadgen)} / ${cores(other(cpu))}` : "–",
        ]),
      ),
      "",
      `This generator is Bun's fetch, which asks for gzip as browsers and HTTP libraries do (\`Accept-Encoding: gzip, deflate, br, zstd\`) ` +
        `and inflates the answers on the same two cores: it saturates before the bare server does (see its CPU column), so its ratios flatter mehir; ` +
        `the wrk table above is the target's measure. One row asks for identity to show the uncompressed path. ` +
        `The catalog walks the first pages of the biggest chain with the server's own cursors. ` +
        `Uncached (first request for a barcode after an import): ${cold}.`,
      "",
      `With this generator: prices at chain granularity ${pct(chain.requestsPerSecond / bareSmall)} of the small-JSON baseline, ${pct(chain.requestsPerSecond / bareAnswer)} of the same-size one, p99 ${ms(chain.latency.p99)} ms ` +
        `(without gzip: ${pct(identity.requestsPerSecond / bareSmall)}, p99 ${ms(identity.latency.p99)} ms). Server peak RSS ${int(rss / 2 ** 20)} MiB.`,
    ].join("\n");
  }

  const markdown = [
    machineLine(`scale ${options.scale}, ${options.connections} connections (closed loop), ${options.seconds} s per row; both servers ${allocatorNote(LAUNCH_ENV)}`),
    "",
    wrkMarkdown,
    ...(loadgenMarkdown ? ["", loadgenMarkdown] : []),
  ].join("\n");
  // wrk-only runs keep the full run's section and write their own.
  if (options.record) writeSection(options.wrkOnly ? "HTTP, wrk only" : "HTTP", markdown);
  return { rows, wrkRows, pass, markdown };
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const quick = flag(args, "quick");
  const { markdown } = await httpBench({
    scale: numberOption(args, "scale", quick ? 0.05 : 1),
    seconds: numberOption(args, "seconds", quick ? 3 : 15),
    connections: numberOption(args, "connections", 50),
    record: flag(args, "record") || !quick,
    wrkOnly: flag(args, "wrk-only"),
    rounds: numberOption(args, "rounds", 3),
  });
  console.log(markdown);
}
