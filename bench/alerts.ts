/**
 * Price alerts under load (issue 24: "the API's p99 unchanged while 1,000 alerts are evaluated").
 * The real server (`startServer`, as `mehir serve`) on the synthetic national database, /prices/
 * at chain granularity driven by wrk (an external load generator) at 50 connections. Each pair
 * has two wrk runs of the same length, in alternating order (pair 1 with alerts first, pair 2
 * without first, …) so that neither always follows the other:
 *   import + alerts   a new data version is committed 0.5 s in (prices of 300 products drop 9 % at
 *                     the biggest chain), with 1,000 alerts active (10 Pro accounts × 100, on the
 *                     1,000 first products; below_ils / drop_pct / promotion), evaluated after the
 *                     change (in the evaluation worker) and their events delivered to a receiver
 *                     on 127.0.0.1 (from the server's delivery thread);
 *   import, no alerts the same change back (the same rows), the alerts disabled — the baseline:
 *                     answers are recomputed after a new data version in both runs.
 * The runs are short (6 s) so that the pass covers most of each run with alerts: its p99 is the
 * p99 "while 1,000 alerts are evaluated", not diluted by seconds of steady serving; the share of
 * the run the pass covered is reported. Before the pairs, one pass runs unmeasured (as on a
 * server up for a day: the kept evaluation thread has evaluated before; the first pass after a
 * start also loads and compiles the pass's code).
 * Measured per run: wrk's figures; the server's CPU by thread (/proc/PID/task: the serving thread
 * per request, idle-priority threads (the evaluation worker; the exports' worker, after every new
 * data version in both runs), the other threads — JIT, GC, pools — and
 * threads that ended); and a probe (GET /healthz every 20 ms on its own connection, queued behind
 * wrk's requests) whose latency is read in the pass window — from the commit until every alert is
 * evaluated, the same length after the commit in the paired run without alerts.
 * The figures: median p99 with alerts ÷ median p99 without (and per pair), the same for the
 * probe in the pass window, req/s and the serving thread's CPU per request.
 *
 *   bun bench/alerts.ts [--scale 0.25] [--alerts 1000] [--seconds 6] [--pairs 6] [--steady] [--quick] [--no-write]
 *
 * The default (≈ 2.5 min with the national database built) is the official figure, recorded in
 * bench/RESULTS.md under "## Alerts"; --quick (small database, 200 alerts, 2 pairs of 5 s) and
 * --no-write do not write it. --steady adds a run without any import before each pair.
 */
import { Database } from "bun:sqlite";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ACCOUNTS_FILE, PRICES_FILE, openDatabase } from "../src/db/open.ts";
import { ACCOUNT_MIGRATIONS } from "../src/db/account-schema.ts";
import { bumpDataVersion } from "../src/data/data-state.ts";
import { ensureNational } from "./national.ts";
import { popularBarcodes } from "./lib/national-build.ts";
import { BENCH_ENV, createLiveBenchKey } from "./lib/bench-key.ts";
import { cpuSeconds, startApi, type ServerProcess } from "./lib/processes.ts";
import { findWrk, runWrk, type WrkReport } from "./lib/wrk.ts";
import { flag, numberOption } from "./lib/args.ts";
import { int, ms, percentile } from "./lib/stats.ts";
import { machineLine, table, writeSection } from "./lib/results.ts";

const args = process.argv.slice(2);
const quick = flag(args, "quick");
const write = !quick && !flag(args, "no-write");
const steady = flag(args, "steady");
const scale = numberOption(args, "scale", quick ? 0.05 : 0.25);
const alertCount = numberOption(args, "alerts", quick ? 200 : 1000);
const seconds = numberOption(args, "seconds", quick ? 5 : 6);
const pairs = numberOption(args, "pairs", quick ? 2 : 6);
const CONNECTIONS = 50;
const PER_ACCOUNT = 100;
/** After wrk's connections are open. */
const COMMIT_AFTER_MS = 500;
const PROBE_EVERY_MS = 20;
const CHANGED = Math.min(300, Math.floor(alertCount * 0.3));
const WITH = `import + ${int(alertCount)} alerts`;
const WITHOUT = "import, no alerts";
const say = (msg: string) => console.error(`[alerts] ${msg}`);
const loadAverage = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

const dataDir = ensureNational(scale, { say });
const prices = new Database(join(dataDir, PRICES_FILE));
prices.run("PRAGMA busy_timeout = 10000");
const barcodes = popularBarcodes(prices, Math.max(500, alertCount));
const chain = (prices.query("SELECT c.id, c.slug FROM stores s JOIN chains c ON c.id = s.chain_id GROUP BY c.id ORDER BY count(*) DESC LIMIT 1").get() as { id: number; slug: string });
const changedIds = (prices.query("SELECT id FROM products ORDER BY id LIMIT ?").all(CHANGED) as { id: number }[]).map((r) => r.id);

const accounts = openDatabase(join(dataDir, ACCOUNTS_FILE), ACCOUNT_MIGRATIONS);
const BENCH_EMAILS = "alerts-bench-%@bench.invalid";
const dropBenchAlerts = () => accounts.run(`DELETE FROM alerts WHERE account_id IN (SELECT id FROM accounts WHERE email LIKE '${BENCH_EMAILS}')`);
dropBenchAlerts();

// The receiver of the events (counts them, answers 200).
let delivered = 0;
const receiver = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: async (r) => (await r.arrayBuffer(), delivered++, new Response("ok")) });

/** A new data version with the prices of the changed products at the biggest chain moved by `factor`, as an import commits it. */
function commitChange(factor: number): number {
  let version = 0;
  prices.transaction(() => {
    prices.run(
      `UPDATE price_current SET price = max(10, CAST(round(price * ?) AS INTEGER))
        WHERE product_id IN (SELECT value FROM json_each(?)) AND store_id IN (SELECT id FROM stores WHERE chain_id = ?)`,
      [factor, JSON.stringify(changedIds), chain.id],
    );
    version = bumpDataVersion(prices, new Date().toISOString(), "demo");
  }).immediate();
  return version;
}

const setAlerts = (status: "active" | "disabled") =>
  accounts.run(`UPDATE alerts SET status = ? WHERE account_id IN (SELECT id FROM accounts WHERE email LIKE '${BENCH_EMAILS}')`, [status]);

/** CPU seconds of each live thread of a process: id, name, scheduling policy (5 = SCHED_IDLE). */
function threadCpu(pid: number): Map<number, { name: string; idle: boolean; seconds: number }> {
  const threads = new Map<number, { name: string; idle: boolean; seconds: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      threads.set(Number(tid), { name, idle: f[38] === "5", seconds: (Number(f[11]) + Number(f[12])) / 100 });
    } catch {
      // Ended meanwhile: counted with the ended threads.
    }
  }
  return threads;
}

/** Where a server's CPU went between two readings, seconds: the serving thread, idle-priority threads, the other live ones, ended ones; live threads by name. */
interface ThreadShare {
  serving: number;
  idle: number;
  others: number;
  byName: Record<string, number>;
  ended: number;
}

function threadShare(pid: number, before: ReturnType<typeof threadCpu>, after: ReturnType<typeof threadCpu>, processSeconds: number): ThreadShare {
  const share: ThreadShare = { serving: 0, idle: 0, others: 0, byName: {}, ended: 0 };
  let live = 0;
  for (const [tid, t] of after) {
    const used = t.seconds - (before.get(tid)?.seconds ?? 0);
    live += used;
    if (tid === pid) share.serving += used;
    else {
      if (t.idle) share.idle += used;
      else share.others += used;
      const name = `${t.idle ? "idle " : ""}${t.name.replace(/\s*\d+$/, "")}`;
      share.byName[name] = (share.byName[name] ?? 0) + used;
    }
  }
  // The process's time includes its ended threads' (their last readings are gone with them).
  share.ended = Math.max(0, processSeconds - live);
  return share;
}

/** Latency of GET /healthz every PROBE_EVERY_MS on its own connection: [ms since start, latency ms]. */
function probe(url: string): { stop: () => Promise<[number, number][]>; started: number } {
  const samples: [number, number][] = [];
  const started = performance.now();
  let running = true;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      const res = await fetch(`${url}/healthz`).catch(() => null);
      await res?.arrayBuffer();
      const t1 = performance.now();
      samples.push([t0 - started, t1 - t0]);
      await Bun.sleep(Math.max(0, PROBE_EVERY_MS - (t1 - t0)));
    }
  })();
  return { started, stop: async () => ((running = false), await loop, samples) };
}

interface Row {
  pair: number;
  phase: string;
  report: WrkReport;
  serverCores: number;
  wrkCores: number;
  threads: ThreadShare;
  /** Commit → every alert evaluated, s (runs with alerts). */
  evaluatedIn: number | null;
  events: number;
  /** The probe's samples, ms after the commit (runs with an import). */
  probe: [number, number][];
  load: string;
}

async function phase(api: ServerProcess, key: string, pair: number, name: string, change: number | null, expectEvaluated: boolean): Promise<Row> {
  const paths = barcodes.slice(0, 500).map((b) => `/api/v1/prices/?barcode=${b}`);
  const deliveredBefore = delivered;
  const threads0 = threadCpu(api.pid);
  const process0 = cpuSeconds(api.pid);
  const probing = probe(api.url);
  const running = runWrk(wrk, { baseUrl: api.url, paths, headers: { "x-api-key": key }, seconds, connections: CONNECTIONS }, api.pid);
  const evaluated: { in: number | null } = { in: null };
  let committedAt = probing.started;
  let pending: Promise<void> | null = null;
  if (change !== null) {
    await Bun.sleep(COMMIT_AFTER_MS);
    committedAt = performance.now();
    const version = commitChange(change);
    if (expectEvaluated) {
      // Done when every bench alert's state is at the new version (the server polls the data
      // version each second); followed past the end of the run when it takes longer.
      const count = accounts.prepare(`SELECT count(*) AS n FROM alerts WHERE state_version >= ? AND account_id IN (SELECT id FROM accounts WHERE email LIKE '${BENCH_EMAILS}')`);
      // Then until its events are delivered: a delivery's success marks its alert active, which
      // would undo the next run's "disabled".
      const queued = accounts.prepare(`SELECT count(*) AS n FROM alert_deliveries WHERE status = 'pending' AND alert_id IN (SELECT a.id FROM alerts a JOIN accounts c ON c.id = a.account_id WHERE c.email LIKE '${BENCH_EMAILS}')`);
      pending = (async () => {
        while (performance.now() - committedAt < 300_000) {
          if (evaluated.in === null && (count.get(version) as { n: number }).n >= alertCount) evaluated.in = (performance.now() - committedAt) / 1000;
          if (evaluated.in !== null && (queued.get() as { n: number }).n === 0) return;
          await Bun.sleep(50);
        }
      })();
    }
  }
  const { report, cpu } = await running;
  const samples = await probing.stop();
  const threads = threadShare(api.pid, threads0, threadCpu(api.pid), cpuSeconds(api.pid) - process0);
  await pending;
  const shift = committedAt - probing.started;
  const row: Row = {
    pair,
    phase: name,
    report,
    serverCores: cpu.server,
    wrkCores: cpu.loadgen,
    threads,
    evaluatedIn: evaluated.in,
    events: delivered - deliveredBefore,
    probe: samples.map(([t, l]) => [t - shift, l]),
    load: loadAverage(),
  };
  say(
    `pair ${pair} ${name}: ${int(report.requestsPerSecond)} req/s, p50 ${ms(report.latency.p50)} p99 ${ms(report.latency.p99)} ms, errors ${report.errors}, ` +
      `serving thread ${usPerRequest(row)} µs/req, idle-priority ${threads.idle.toFixed(2)} s, other threads ${threads.others.toFixed(2)} s ${JSON.stringify(roundAll(threads.byName))}, ended ${threads.ended.toFixed(2)} s, ` +
      `evaluated ${row.evaluatedIn === null ? "—" : `${row.evaluatedIn.toFixed(1)} s (${Math.round(passShare(row)! * 100)} % of the run)`}, events ${row.events}, load ${row.load}`,
  );
  return row;
}

/** The share of a run with alerts during which they were being evaluated (from the commit until all were). */
const passShare = (r: Row) => (r.evaluatedIn === null ? null : Math.min(r.evaluatedIn, seconds - COMMIT_AFTER_MS / 1000) / seconds);
const usPerRequest = (r: Row) => int((r.threads.serving / Math.max(1, r.report.requests)) * 1e6);
const roundAll = (o: Record<string, number>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v >= 0.01).map(([k, v]) => [k, Number(v.toFixed(2))]));
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
/** The probe's latencies from the commit to `windowMs` after it. */
const inWindow = (r: Row, windowMs: number) => Float64Array.from(r.probe.filter(([t]) => t >= 0 && t <= windowMs).map(([, l]) => l)).sort();

const found = findWrk();
if ("skip" in found) {
  console.error(`[alerts] skipped: ${found.skip}`);
  process.exit(0);
}
const wrk = found.path;

async function main(): Promise<void> {
  const loadAtStart = loadAverage();
  const api = await startApi(dataDir, { ...BENCH_ENV, MEHIR_WEBHOOK_ALLOW_LOOPBACK: "on", MEHIR_LOG_LEVEL: "warn" });
  const rows: Row[] = [];
  try {
    // 1,000 alerts through the API (validation, the URL guard, a baseline evaluation each).
    const keys = Array.from({ length: Math.ceil(alertCount / PER_ACCOUNT) }, (_, i) => createLiveBenchKey(dataDir, `alerts-bench-${i}`));
    const created0 = performance.now();
    for (let i = 0; i < alertCount; i++) {
      const condition = i % 3 === 0 ? { drop_pct: 5 } : i % 3 === 1 ? { below_ils: "5.00" } : { promotion: true };
      const res = await fetch(`${api.url}/api/v1/alerts/`, {
        method: "POST",
        headers: { "x-api-key": keys[Math.floor(i / PER_ACCOUNT)]!, "content-type": "application/json" },
        body: JSON.stringify({ url: `http://127.0.0.1:${receiver.port}/hook`, barcode: barcodes[i], condition }),
      });
      if (res.status !== 201) throw new Error(`creating alert ${i}: ${res.status} ${await res.text()}`);
    }
    say(`${alertCount} alerts created in ${((performance.now() - created0) / 1000).toFixed(1)} s`);
    const key = keys[0]!;
    // Warm the answers of the measured paths.
    await runWrk(wrk, { baseUrl: api.url, paths: barcodes.slice(0, 500).map((b) => `/api/v1/prices/?barcode=${b}`), headers: { "x-api-key": key }, seconds: 3, connections: CONNECTIONS }, api.pid);
    // One pass unmeasured: the evaluation thread started and its code compiled, as on a server up for a day.
    setAlerts("active");
    await phase(api, key, 0, "warm-up pass (not counted)", 1 / 1.1, true);
    for (let pair = 1; pair <= pairs; pair++) {
      if (steady) rows.push(await phase(api, key, pair, "steady", null, false));
      // Prices drop by 9 % with the alerts active (the drop_pct ones fire when the run before was
      // the rise), and go up by as much with them disabled: the same changed rows in both runs.
      const withAlerts = async () => (setAlerts("active"), rows.push(await phase(api, key, pair, WITH, 1 / 1.1, true)));
      const without = async () => (setAlerts("disabled"), rows.push(await phase(api, key, pair, WITHOUT, 1.1, false)));
      if (pair % 2 === 1) await withAlerts(), await without();
      else await without(), await withAlerts();
    }
  } finally {
    await api.stop();
    dropBenchAlerts();
    receiver.stop(true);
  }

  const withRows = rows.filter((r) => r.phase === WITH);
  const withoutRows = rows.filter((r) => r.phase === WITHOUT);
  const p99 = (r: Row) => r.report.latency.p99;
  const perPair = withRows.map((r, i) => p99(r) / p99(withoutRows[i]!));
  const p99Ratio = median(withRows.map(p99)) / median(withoutRows.map(p99));
  const rpsRatio = median(withRows.map((r) => r.report.requestsPerSecond)) / median(withoutRows.map((r) => r.report.requestsPerSecond));
  const servingUs = (r: Row) => (r.threads.serving / Math.max(1, r.report.requests)) * 1e6;
  const servingRatio = median(withRows.map(servingUs)) / median(withoutRows.map(servingUs));
  // The probe in the pass window: from the commit until every alert was evaluated (the paired run: as long).
  const windows = withRows.map((r) => Math.min((r.evaluatedIn ?? seconds) * 1000, seconds * 1000 - COMMIT_AFTER_MS));
  const probeWith = withRows.map((r, i) => percentile(inWindow(r, windows[i]!), 95));
  const probeWithout = withoutRows.map((r, i) => percentile(inWindow(r, windows[i]!), 95));
  const probeRatio = median(probeWith) / median(probeWithout);
  const share = median(withRows.map((r) => passShare(r) ?? 0));
  const threadCell = (r: Row) => `${r.threads.serving.toFixed(2)} / ${r.threads.idle.toFixed(2)} / ${r.threads.others.toFixed(2)} / ${r.threads.ended.toFixed(2)}`;
  const load = loadAverage();
  const markdown = [
    machineLine(`scale ${scale}, ${CONNECTIONS} connections, wrk -t1, ${seconds} s per run, ${pairs} pairs; load average at the start ${loadAtStart}, at the end ${load}`),
    "",
    table(
      ["pair", "run", "req/s", "p50 ms", "p99 ms", "max ms", "errors", "probe p95 ms in the pass window", "alerts evaluated in (share of the run)", "events", "server / wrk (cores)", "serving thread µs/req", "CPU s: serving / idle-priority / other live / ended threads", "load (1, 5, 15 min)"],
      rows.map((r) => {
        const i = withRows.findIndex((w) => w.pair === r.pair);
        const probeCell = r.phase === "steady" || i < 0 ? "—" : ms(percentile(inWindow(r, windows[i]!), 95));
        return [r.pair, r.phase, int(r.report.requestsPerSecond), ms(r.report.latency.p50), ms(r.report.latency.p99), ms(r.report.latency.max), r.report.errors, probeCell, r.evaluatedIn === null ? "—" : `${r.evaluatedIn.toFixed(1)} s (${Math.round(passShare(r)! * 100)} %)`, r.events, `${r.serverCores.toFixed(2)} / ${r.wrkCores.toFixed(2)}`, usPerRequest(r), threadCell(r), r.load];
      }),
    ),
    "",
    `**With ${int(alertCount)} alerts evaluated ÷ the same import without alerts** (medians over ${pairs} pairs): p99 **${p99Ratio.toFixed(2)}** (per pair ${perPair.map((x) => x.toFixed(2)).join(", ")}); ` +
      `the probe's p95 in the pass window ${probeRatio.toFixed(2)}; req/s ${rpsRatio.toFixed(2)}; the serving thread's CPU per request ${servingRatio.toFixed(2)}; ` +
      `the pass ran during ${Math.round(share * 100)} % of each run with alerts (median). Load average ${loadAtStart} at the start, ${load} at the end. ` +
      `Each run (${seconds} s) commits a new data version ${COMMIT_AFTER_MS / 1000} s in (prices of ${CHANGED} products change at ${chain.slug}); the pairs alternate which run comes first; one pass ran unmeasured before them. ` +
      `The alerts (a third each below_ils, drop_pct, promotion, on the ${int(alertCount)} first products) are evaluated in the server's evaluation worker, one thread kept between passes at the imports' CPU priority (SCHED_IDLE on Linux), on its own connections — the "idle-priority" column, with the daily exports' worker, which runs after every new data version in both runs; ` +
      `"alerts evaluated in" is from the commit until every alert's state is at the new version (the server notices a new version within a second), and it is the pass window of both runs of the pair. ` +
      `The probe is GET /healthz every ${PROBE_EVERY_MS} ms on its own connection, queued with wrk's requests: its latency is the serving thread's delay at that moment. ` +
      `The events (drop_pct alerts after a rise) are delivered from the server's delivery thread to a receiver on 127.0.0.1 in the bench process, and the alerts' states written by the serving thread, 25 per transaction: their cost is in the figures. ` +
      `"Other live" threads are JavaScriptCore's JIT and GC helpers and Bun's pools (normal priority); "ended" are threads that ended during the run. ` +
      "On a shared machine the load average beside each run and the spread between pairs are part of the figure.",
  ].join("\n");
  console.log(markdown);
  if (write) writeSection("Alerts", markdown);
}

await main();
prices.close();
accounts.close();
process.exit(0);
