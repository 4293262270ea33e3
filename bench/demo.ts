/**
 * First start and later start on the embedded demo dataset.
 *
 * First start = what `mehir serve` does with an empty data dir in demo mode: ensureDemoData
 * (generate every chain's files into <data-dir>/demo-files, import them in the import worker),
 * then the server up and /readyz answering 200. Later start = the server on the same data dir,
 * from process spawn to /readyz 200. Each start is its own process.
 * Baselines in the same run: `gzip -dc` of the demo's .gz files (the import's decompression
 * floor), and the bare Bun.serve child from spawn to its first answer.
 *
 *   bun bench/demo.ts [--scale 1] [--seed 1] [--runs 3] [--no-write]
 *
 * Targets: first start ≤ 30 s, later start ≤ 2 s. Figures go to bench/RESULTS.md (## Demo).
 */
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Database } from "bun:sqlite";
import { flag, numberOption, option } from "./lib/args.ts";
import { startApi, startBare } from "./lib/processes.ts";
import { machineLine, table, writeSection } from "./lib/results.ts";

const args = process.argv.slice(2);
const say = (msg: string) => console.error(`[demo] ${msg}`);
const n = (v: number) => Math.round(v).toLocaleString("en-US");
const s = (ms: number) => (ms / 1000).toFixed(1);

// Child mode: one first start (ensureDemoData) in a fresh process, JSON on stdout.
const childDir = option(args, "child-first-start");
if (childDir) {
  const { openDataDir } = await import("../src/db/open.ts");
  const { loadRegistry } = await import("../src/registry.ts");
  const { syncRegistry } = await import("../src/db/sync-registry.ts");
  const { ensureDemoData } = await import("../src/demo/first-start.ts");
  const started = performance.now();
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const db = openDataDir(childDir);
  const registry = loadRegistry();
  syncRegistry(db.prices, registry);
  let generatedCpu = 0;
  const result = await ensureDemoData({
    db: db.prices,
    registry,
    dataDir: childDir,
    seed: numberOption(args, "seed", 1),
    scale: numberOption(args, "scale", 1),
    log: (msg) => {
      if (msg === "demo: files written") generatedCpu = cpu();
    },
  });
  db.prices.close();
  db.accounts.close();
  const { demo, import: run } = result.report!;
  console.log(
    JSON.stringify({
      totalMs: performance.now() - started,
      generateCpuMs: generatedCpu,
      importCpuMs: cpu() - generatedCpu,
      generateMs: demo.millis,
      importMs: run.durationMs,
      status: run.status,
      files: demo.files,
      bytes: demo.bytes,
      stores: demo.stores,
      chains: demo.chains,
      priceRows: run.totals.priceRows,
      rows: run.totals.rows,
      rejected: run.totals.rejected,
    }),
  );
  process.exit(0);
}

const scale = numberOption(args, "scale", 1);
const runs = numberOption(args, "runs", 3);

/** Busy CPU seconds of the whole machine so far (all cores), from /proc/stat. */
function machineBusySeconds(): number {
  const v = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  return (v.reduce((a, b) => a + b, 0) - v[3]! - v[4]!) / 100;
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

async function serverStart(dataDir: string): Promise<number> {
  const started = performance.now();
  const server = await startApi(dataDir, { MEHIR_LOG_LEVEL: "warn" });
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

const dataDir = mkdtempSync(join(tmpdir(), "mehir-bench-demo-"));
try {
  say("baseline: bare Bun.serve");
  const bareStarted = performance.now();
  const bare = await startBare();
  await fetch(`${bare.url}/small`);
  const bareMs = performance.now() - bareStarted;
  await bare.stop();

  say(`first start (scale ${scale}) in ${dataDir}`);
  const busyBefore = machineBusySeconds();
  const child = Bun.spawn([process.execPath, import.meta.path, "--child-first-start", dataDir, "--scale", String(scale), "--seed", option(args, "seed") ?? "1"], {
    stdout: "pipe",
    stderr: "inherit",
    env: { ...process.env, MEHIR_LOG_LEVEL: "warn" },
  });
  const out = await new Response(child.stdout).text();
  await child.exited;
  if (child.exitCode !== 0) throw new Error(`first-start child failed (${child.exitCode})`);
  const busyDuring = machineBusySeconds() - busyBefore;
  const first = JSON.parse(out.trim().split("\n").pop()!) as {
    totalMs: number; generateMs: number; importMs: number; generateCpuMs: number; importCpuMs: number; status: string; files: number; bytes: number;
    stores: number; chains: number; priceRows: number; rows: number; rejected: number;
  };
  const others = (busyDuring - (first.generateCpuMs + first.importCpuMs) / 1000) / (first.totalMs / 1000);
  say(`generated ${first.files} files in ${s(first.generateMs)} s, imported ${n(first.priceRows)} price rows in ${s(first.importMs)} s (${first.status})`);
  const firstReadyMs = await serverStart(dataDir);
  const firstTotal = first.totalMs + firstReadyMs;

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

  const rows: (string | number)[][] = [
    ["generate files (2 threads)", s(first.generateMs), s(first.generateCpuMs), `${first.chains} chains, ${first.stores} stores, ${n(first.files)} files, ${(first.bytes / 2 ** 20).toFixed(0)} MiB`],
    ["import (worker, one transaction)", s(first.importMs), s(first.importCpuMs), `${n(first.priceRows)} price rows, ${n(first.rows)} rows in all, ${first.rejected} files rejected`],
    ["server up, /readyz 200", s(firstReadyMs), "", `${n(products)} products, ${n(history)} history rows, ${n(promotions)} promotions, DB ${(dbBytes / 2 ** 20).toFixed(0)} MiB`],
    ["**first start, total**", `**${s(firstTotal)}**`, s(first.generateCpuMs + first.importCpuMs), `target ≤ 30 s; other processes kept ${others.toFixed(1)} of 2 cores busy meanwhile`],
    [`**later start** (median of ${runs})`, `**${s(laterMs)}**`, "", `spawn → /readyz 200; all runs ${later.map(s).join(", ")} s; target ≤ 2 s`],
    ["baseline: `gzip -dc` of the demo's .gz files", s(gunzip.ms), "", `${n(gunzip.files)} of the ${n(first.files)} files, one process (the import's decompression floor)`],
    ["baseline: bare Bun.serve spawn → first answer", s(bareMs), "", ""],
  ];
  const verdict = `Targets (first start ≤ 30 s, later start ≤ 2 s): first start **${firstTotal <= 30_000 ? "met" : "not met"}** (${s(firstTotal)} s), later start **${laterMs <= 2_000 ? "met" : "not met"}** (${s(laterMs)} s).`;
  const body = [machineLine(`scale ${scale}, seed ${option(args, "seed") ?? "1"}, load average at the end ${(await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ")}`), "", table(["step", "wall s", "CPU s", "what"], rows), "", verdict].join("\n");
  console.log(body);
  if (!flag(args, "no-write")) {
    writeSection("Demo", body);
    say(`written to ${resolve(import.meta.dir, "RESULTS.md")} (## Demo)`);
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
