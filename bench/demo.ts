/**
 * First start and later start on the embedded demo dataset.
 *
 * First start = `mehir serve` (startServer) spawned on an empty data dir in demo mode, from spawn
 * to /readyz 200: it generates every chain's files into <data-dir>/demo-files, imports them in
 * the import worker and builds the search index (the split comes from the server's own log
 * lines). Later start = the server on the same data dir, from spawn to /readyz 200.
 * Baselines in the same run: `gzip -dc` of the demo's .gz files (the import's decompression
 * floor), and the bare Bun.serve child from spawn to its first answer.
 *
 *   bun bench/demo.ts [--first-runs 3] [--runs 3] [--no-write]
 *
 * Targets (issue 46): first start ≤ 10 s with every /healthz and /readyz answer < 50 ms (asked
 * every 100 ms from the moment the server listens), in each of `--first-runs` first starts in a
 * row, each on a new empty data dir; later start ≤ 2 s (median of `--runs`). Figures go to
 * bench/RESULTS.md (## Demo).
 */
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Database } from "bun:sqlite";
import { flag, numberOption, option } from "./lib/args.ts";
import { allocatorEnv, allocatorNote } from "./lib/allocator.ts";
import { cpuSeconds, LOG_DIR, startApi, startApiListening, startBare } from "./lib/processes.ts";
import { ms, summarize } from "./lib/stats.ts";
import { sumTimes, threadsNamed } from "./lib/thread-times.ts";
import { machineLine, table, writeSection } from "./lib/results.ts";

const args = process.argv.slice(2);
const say = (msg: string) => console.error(`[demo] ${msg}`);
const n = (v: number) => Math.round(v).toLocaleString("en-US");
const s = (ms: number) => (ms / 1000).toFixed(1);

const runs = numberOption(args, "runs", 3);
const firstRuns = Math.max(1, Math.round(numberOption(args, "first-runs", 3)));
const FIRST_START_TARGET_MS = 10_000;
const LATER_START_TARGET_MS = 2_000;
const PROBE_TARGET_MS = 50;
/**
 * The allocator settings the server's launchers give it (bench/lib/allocator.ts), so the bench
 * starts it as it is deployed. `MIMALLOC_PURGE_DELAY=` (empty) on the bench's command line measures without one.
 */
const LAUNCH_ENV = allocatorEnv();

/** Busy CPU seconds of the whole machine so far (all cores), from /proc/stat. */
function machineBusySeconds(): number {
  const v = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  return (v.reduce((a, b) => a + b, 0) - v[3]! - v[4]!) / 100;
}

/** Generation, import and index figures from the server's JSON log lines of its first start. */
function demoLogFigures(logText: string) {
  const lines = logText.split("\n").filter(Boolean).map((l) => { try { return JSON.parse(l); } catch { return {}; } });
  const find = (msg: string) => lines.find((l) => l.msg === msg) ?? {};
  const written = find("demo: files written");
  const imported = find("demo: imported");
  const indexed = find("search index built");
  return {
    files: Number(written.files), bytes: Number(written.bytes), priceRows: Number(written.price_rows), generateMs: Number(written.ms),
    importMs: Number(imported.ms), rows: Number(imported.rows), status: String(imported.status), searchMs: Number(indexed.ms),
  };
}

/**
 * Waits until the server's log holds a line for each of `msgs` (its lines are written in batches,
 * and readiness can be seen before the import's own "imported" line, sent after its report and checkpoint).
 */
async function untilLogged(logPath: string, msgs: string[], timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = readFileSync(logPath, "utf8");
    const missing = msgs.filter((msg) => !text.includes(`"msg":${JSON.stringify(msg)}`));
    if (missing.length === 0) return text;
    if (Date.now() > deadline) throw new Error(`the server did not log ${missing.join(", ")} within ${timeoutMs / 1000} s`);
    await Bun.sleep(50);
  }
}

async function untilReady(url: string, deadline: number): Promise<void> {
  for (;;) {
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error("not ready in time");
    await Bun.sleep(20);
  }
}

/** One probe: its time, and over that time the serving thread's and the prober threads' CPU and wait for a core, ms. */
interface Probe {
  /** When it was asked, ms after the server listened. */
  at: number;
  ms: number;
  servingCpu: number;
  servingWait: number;
  proberCpu: number;
  proberWait: number;
}

/**
 * From the moment the server listens until /readyz says 200: /healthz and /readyz asked in turn,
 * one at a time, 100 ms apart (as a load balancer would, only more often), each answer timed,
 * with the serving thread's and the prober's threads' schedstat read around it (where a slow answer's time went).
 */
async function probeUntilReady(url: string, serverPid: number, deadline: number): Promise<{ healthz: Probe[]; readyz: Probe[] }> {
  const probes = { healthz: [] as Probe[], readyz: [] as Probe[] };
  const proberThreads: [number, number][] = [process.pid, ...threadsNamed(process.pid, "HTTP Client")].map((tid) => [process.pid, tid]);
  const listening = performance.now();
  for (;;) {
    for (const path of ["healthz", "readyz"] as const) {
      const serving0 = sumTimes([[serverPid, serverPid]]);
      const prober0 = sumTimes(proberThreads);
      const started = performance.now();
      const res = await fetch(`${url}/${path}`);
      await res.arrayBuffer();
      const ms = performance.now() - started;
      const serving1 = sumTimes([[serverPid, serverPid]]);
      const prober1 = sumTimes(proberThreads);
      probes[path].push({ at: started - listening, ms, servingCpu: serving1.cpu - serving0.cpu, servingWait: serving1.wait - serving0.wait, proberCpu: prober1.cpu - prober0.cpu, proberWait: prober1.wait - prober0.wait });
      if (path === "readyz" && res.status === 200) return probes;
    }
    if (Date.now() > deadline) throw new Error("not ready in time");
    await Bun.sleep(100);
  }
}

/** Where a probe's time went, as a table cell. */
function whereItWent(what: string, probe: Probe): string {
  const head = `${what} ${ms(probe.ms)} ms (${s(probe.at)} s after listening)`;
  if (!Number.isFinite(probe.servingWait)) return head;
  return `${head}: serving thread on a CPU ${ms(probe.servingCpu)} ms, waiting for one ${ms(probe.servingWait)} ms; prober's threads on a CPU ${ms(probe.proberCpu)} ms, waiting ${ms(probe.proberWait)} ms`;
}
const slowest = (probes: Probe[]) => probes.reduce((a, b) => (b.ms > a.ms ? b : a));

async function serverStart(dataDir: string): Promise<number> {
  const started = performance.now();
  const server = await startApi(dataDir, { ...LAUNCH_ENV, MEHIR_LOG_LEVEL: "warn" });
  await untilReady(server.url, Date.now() + 120_000);
  const ms = performance.now() - started;
  await server.stop();
  return ms;
}

/** The floor of reading the demo back: `gzip -dc` of its gzip-compressed .gz files (zip and plain files left out). */
function gunzipBaseline(dir: string): { ms: number; files: number } {
  const gz: string[] = [];
  for (const chain of readdirSync(join(dir, "demo-files"))) {
    for (const name of readdirSync(join(dir, "demo-files", chain))) {
      const path = join(dir, "demo-files", chain, name);
      const head = new Uint8Array(2);
      const fd = openSync(path, "r");
      readSync(fd, head, 0, 2, 0);
      closeSync(fd);
      if (head[0] === 0x1f && head[1] === 0x8b && name.endsWith(".gz")) gz.push(path);
    }
  }
  const started = performance.now();
  const result = Bun.spawnSync(["gzip", "-dc", ...gz], { stdout: "ignore", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`gunzip failed: ${result.stderr.toString()}`);
  return { ms: performance.now() - started, files: gz.length };
}

interface FirstStart {
  dataDir: string;
  totalMs: number;
  serverCpuMs: number;
  /** CPU other processes used meanwhile, in cores. */
  others: number;
  probes: { healthz: Probe[]; readyz: Probe[] };
  figures: ReturnType<typeof demoLogFigures>;
}

/** One first start on a new empty data dir: spawn → /readyz 200, probed throughout. */
async function firstStart(): Promise<FirstStart> {
  const dataDir = mkdtempSync(join(tmpdir(), "mehir-bench-demo-"));
  say(`first start in ${dataDir}`);
  const busyBefore = machineBusySeconds();
  const started = performance.now();
  const server = await startApiListening(dataDir, { ...LAUNCH_ENV, MEHIR_LOG_LEVEL: "info" });
  const probes = await probeUntilReady(server.url, server.pid, Date.now() + 300_000).catch(async (error) => {
    await server.stop();
    throw error;
  });
  const totalMs = performance.now() - started;
  const serverCpuMs = cpuSeconds(server.pid) * 1000;
  const busyDuring = machineBusySeconds() - busyBefore;
  const logged = await untilLogged(join(LOG_DIR, "api.log"), ["demo: files written", "demo: imported", "search index built"], 60_000).finally(() => server.stop());
  const figures = demoLogFigures(logged);
  const others = (busyDuring - serverCpuMs / 1000) / (totalMs / 1000);
  say(`generated ${figures.files} files in ${s(figures.generateMs)} s, imported ${n(figures.priceRows)} price rows in ${s(figures.importMs)} s (${figures.status}), ready after ${s(totalMs)} s`);
  return { dataDir, totalMs, serverCpuMs, others, probes, figures };
}

const slowestOf = (run: FirstStart) => Math.max(...[...run.probes.healthz, ...run.probes.readyz].map((p) => p.ms));

const starts: FirstStart[] = [];
try {
  say("baseline: bare Bun.serve");
  const bareStarted = performance.now();
  const bare = await startBare();
  await fetch(`${bare.url}/small`);
  const bareMs = performance.now() - bareStarted;
  await bare.stop();

  for (let i = 0; i < firstRuns; i++) {
    starts.push(await firstStart());
    // Only the last data dir is kept (later starts and the baselines read it).
    if (i < firstRuns - 1) rmSync(starts[i]!.dataDir, { recursive: true, force: true });
  }
  const last = starts.at(-1)!;
  const dataDir = last.dataDir;

  const later: number[] = [];
  for (let i = 0; i < runs; i++) later.push(await serverStart(dataDir));
  later.sort((a, b) => a - b);
  const laterMs = later[Math.floor(later.length / 2)]!;
  const gunzip = gunzipBaseline(dataDir);

  const db = new Database(join(dataDir, "prices.sqlite"), { readonly: true });
  const count = (sql: string) => (db.query(sql).get() as { n: number }).n;
  const history = count("SELECT count(*) AS n FROM price_history");
  const products = count("SELECT count(*) AS n FROM products");
  const promotions = count("SELECT count(*) AS n FROM promotions");
  db.close();
  const dbBytes = readdirSync(dataDir).filter((f) => f.startsWith("prices.sqlite")).reduce((sum, f) => sum + statSync(join(dataDir, f)).size, 0);

  const first = last.figures;
  const healthz = summarize(last.probes.healthz.map((p) => p.ms));
  const readyz = summarize(last.probes.readyz.map((p) => p.ms));
  const over50 = starts.reduce((sum, run) => sum + [...run.probes.healthz, ...run.probes.readyz].filter((p) => p.ms >= PROBE_TARGET_MS).length, 0);
  const rows: (string | number)[][] = [
    ...starts.map((run, i) => [
      `**first start ${i + 1} of ${starts.length}** (spawn → /readyz 200)`,
      `**${s(run.totalMs)}**`,
      s(run.serverCpuMs),
      `generate ${s(run.figures.generateMs)} s, import ${s(run.figures.importMs)} s (${run.figures.status}), search index ${s(run.figures.searchMs)} s; slowest probe ${ms(slowestOf(run))} ms; other processes kept ${run.others.toFixed(1)} of 2 cores busy meanwhile`,
    ]),
    [`generate files (2 threads), run ${starts.length}`, s(first.generateMs), "", `${n(first.files)} files, ${(first.bytes / 2 ** 20).toFixed(0)} MiB`],
    [`import (worker, one transaction), run ${starts.length}`, s(first.importMs), "", `${n(first.priceRows)} price rows, ${n(first.rows)} rows in all, status ${first.status}`],
    [`search index built, run ${starts.length}`, s(first.searchMs), "", `${n(products)} products, ${n(history)} history rows, ${n(promotions)} promotions, DB ${(dbBytes / 2 ** 20).toFixed(0)} MiB`],
    [`**later start** (median of ${runs})`, `**${s(laterMs)}**`, "", `spawn → /readyz 200; all runs ${later.map(s).join(", ")} s`],
    [`probes during first start ${starts.length}: \`/healthz\``, "", "", `${last.probes.healthz.length} answers, p50 ${ms(healthz.p50)} ms, p99 ${ms(healthz.p99)} ms, ${whereItWent("slowest", slowest(last.probes.healthz))}; ${whereItWent("the first", last.probes.healthz[0]!)}`],
    [`probes during first start ${starts.length}: \`/readyz\``, "", "", `${last.probes.readyz.length} answers, p50 ${ms(readyz.p50)} ms, p99 ${ms(readyz.p99)} ms, ${whereItWent("slowest", slowest(last.probes.readyz))}`],
    ["baseline: `gzip -dc` of the demo's .gz files", s(gunzip.ms), "", `${n(gunzip.files)} of the ${n(first.files)} files, one process (the import's decompression floor)`],
    ["baseline: bare Bun.serve spawn → first answer", s(bareMs), "", ""],
  ];
  const firstMet = starts.every((run) => run.totalMs <= FIRST_START_TARGET_MS);
  const slowestProbe = Math.max(...starts.map(slowestOf));
  const verdict =
    `Targets (first start ≤ ${s(FIRST_START_TARGET_MS)} s and every /healthz and /readyz answer during it < ${PROBE_TARGET_MS} ms, in each of ${starts.length} first starts in a row; later start ≤ ${s(LATER_START_TARGET_MS)} s): ` +
    `first start **${firstMet ? "met" : "not met"}** (${starts.map((run) => s(run.totalMs)).join(", ")} s), ` +
    `probes **${slowestProbe < PROBE_TARGET_MS ? "met" : "not met"}** (slowest ${ms(slowestProbe)} ms; answers ≥ ${PROBE_TARGET_MS} ms: ${over50}), ` +
    `later start **${laterMs <= LATER_START_TARGET_MS ? "met" : "not met"}** (${s(laterMs)} s).`;
  const body = [machineLine(`demo seed 1, ${allocatorNote(LAUNCH_ENV)}, load average at the end ${(await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ")}`), "", table(["step", "wall s", "CPU s", "what"], rows), "", verdict].join("\n");
  console.log(body);
  if (!flag(args, "no-write")) {
    writeSection("Demo", body);
    say(`written to ${resolve(import.meta.dir, "RESULTS.md")} (## Demo)`);
  }
} finally {
  for (const run of starts) rmSync(run.dataDir, { recursive: true, force: true });
}
