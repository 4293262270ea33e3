/**
 * Child process of bench/import-memory.ts: the real server (`startServer`, as `mehir serve` runs it)
 * on a data dir, which then imports one day folder after another through the import worker (the
 * path a live collection takes: runImportInWorker, then the data refreshed at its commit). After
 * each import, a full GC, then one JSON line on stdout: RSS, heap, open file descriptors, threads
 * and live timers of this process.
 *
 *   bun bench/lib/import-memory-child.ts --data-dir DIR --days DIR1,DIR2,… --ready-file FILE
 *
 * Timers are counted by wrapping setTimeout/setInterval before the server is loaded (Bun has no
 * list of them): created and not yet fired or cleared. Worker threads' own timers are not in it;
 * their threads are (/proc/self/task).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { option } from "./args.ts";

const live = new Set<unknown>();
const { setTimeout: st, setInterval: si, clearTimeout: ct, clearInterval: ci } = globalThis;
globalThis.setTimeout = ((fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) => {
  const handle = st((...a: unknown[]) => {
    live.delete(handle);
    fn(...a);
  }, ms, ...args);
  live.add(handle);
  return handle;
}) as typeof setTimeout;
globalThis.setInterval = ((fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) => {
  const handle = si(fn, ms, ...args);
  live.add(handle);
  return handle;
}) as typeof setInterval;
globalThis.clearTimeout = ((handle: unknown) => {
  live.delete(handle);
  ct(handle as never);
}) as typeof clearTimeout;
globalThis.clearInterval = ((handle: unknown) => {
  live.delete(handle);
  ci(handle as never);
}) as typeof clearInterval;

const { loadSettings } = await import("../../src/config.ts");
const { startServer } = await import("../../src/server.ts");
const { runImportInWorker } = await import("../../src/ingest/run-in-worker.ts");
const { PRICES_FILE } = await import("../../src/db/open.ts");

const args = process.argv.slice(2);
const dataDir = option(args, "data-dir")!;
const days = option(args, "days")!.split(",");
const readyFile = option(args, "ready-file")!;
const server = await startServer(loadSettings(process.env, { dataDir, port: 0, host: "127.0.0.1" }));
await Bun.write(readyFile, JSON.stringify({ url: server.url, pid: process.pid }));

const threadCount = () => readdirSync("/proc/self/task").length;

/**
 * Waits until the threads of finished workers have exited (Worker.terminate returns before its
 * thread is gone): the thread count unchanged over 10 reads 50 ms apart, or 10 s.
 */
async function settled(): Promise<void> {
  const until = Date.now() + 10_000;
  let last = threadCount();
  let same = 0;
  while (same < 10 && Date.now() < until) {
    await Bun.sleep(50);
    const now = threadCount();
    same = now === last ? same + 1 : 0;
    last = now;
  }
}

async function sample(i: number, ms: number, dataVersion: number | null) {
  await settled();
  Bun.gc(true);
  const status = readFileSync("/proc/self/status", "utf8");
  const kib = (field: string) => Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"))?.[1] ?? NaN);
  const memory = process.memoryUsage();
  return {
    import: i,
    ms,
    dataVersion,
    rssMiB: +(kib("VmRSS") / 1024).toFixed(1),
    heapMiB: +(memory.heapUsed / 2 ** 20).toFixed(1),
    fds: readdirSync("/proc/self/fd").length,
    threads: threadCount(),
    timers: live.size,
  };
}

// Settle after start (search index, sandbox, first export): the first sample is import 0.
await Bun.sleep(2000);
console.log("SAMPLE " + JSON.stringify(await sample(0, 0, server.deps.data.current.version)));
for (let i = 0; i < days.length; i++) {
  const started = performance.now();
  const report = await runImportInWorker({ dbPath: join(dataDir, PRICES_FILE), paths: [days[i]!], origin: "fetch", source: "live", priority: "normal", fileReports: "problems", onCommitted: () => server.deps.data.refresh() });
  const ms = Math.round(performance.now() - started);
  // The export this version starts (a worker) is part of the server's work: wait for it like the next import would.
  await server.exporter?.idle();
  console.log("SAMPLE " + JSON.stringify(await sample(i + 1, ms, report.dataVersion)));
}
await server.stop();
process.exit(0);
