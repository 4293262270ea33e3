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
 * list of them): created and not yet fired or cleared, one-shots of up to a second left out; fds,
 * threads and timers are each the fewest over the seconds before the sample (see settled). Worker threads' own timers are not in it;
 * their threads are (/proc/self/task).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { option } from "./args.ts";

/** Live timers and what they are ("interval 1000", "timeout 30000"). */
const live = new Map<unknown, string>();
const { setTimeout: st, setInterval: si, clearTimeout: ct, clearInterval: ci } = globalThis;
globalThis.setTimeout = ((fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) => {
  const handle = st((...a: unknown[]) => {
    live.delete(handle);
    fn(...a);
  }, ms, ...args);
  live.set(handle, `timeout ${ms ?? 0}`);
  return handle;
}) as typeof setTimeout;
globalThis.setInterval = ((fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) => {
  const handle = si(fn, ms, ...args);
  live.set(handle, `interval ${ms ?? 0}`);
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
const { runImportInWorker } = await import("../../src/ingest/run/run-in-worker.ts");
const { PRICES_FILE } = await import("../../src/db/open.ts");

const args = process.argv.slice(2);
const dataDir = option(args, "data-dir")!;
const days = option(args, "days")!.split(",");
const readyFile = option(args, "ready-file")!;
const server = await startServer(loadSettings(process.env, { dataDir, port: 0, host: "127.0.0.1" }));
await Bun.write(readyFile, JSON.stringify({ url: server.url, pid: process.pid }));

const threadCount = () => readdirSync("/proc/self/task").length;

/**
 * The runtime's own threads (JSC's JIT and GC helpers, the allocator's scavenger, Bun's I/O pool,
 * which come and go with the work), by name; every other thread is a worker's.
 */
const RUNTIME_THREAD = /^(bun|bun\.exe|JITWorker|HeapHelper|JSCWarmUp|mi-scavenger|s Signal Sender|Bun Pool \d+)$/;
const workerThreadCount = () =>
  readdirSync("/proc/self/task").filter((tid) => {
    try {
      return !RUNTIME_THREAD.test(readFileSync(`/proc/self/task/${tid}/comm`, "utf8").trim());
    } catch {
      return false; // gone meanwhile
    }
  }).length;

const fdCount = () => readdirSync("/proc/self/fd").length;

/** Live timers other than one-shots of up to a second (re-armed per use, e.g. the usage flush while requests flow). */
const keptTimers = () => [...live.values()].filter((kind) => !(kind.startsWith("timeout ") && Number(kind.slice(8)) <= 1000)).length;

/**
 * Reads fds, threads and kept timers every 50 ms for at least two seconds and until the thread count
 * has been the same 20 times (Worker.terminate returns before its thread is gone), at most 20 s,
 * and returns the fewest of each: what comes and goes (a worker finishing, a file being read) is
 * not kept; a leak is in every read.
 */
async function settled(): Promise<{ fds: number; threads: number; workerThreads: number; timers: number }> {
  const started = Date.now();
  let last = threadCount();
  let same = 0;
  const least = { fds: fdCount(), threads: last, workerThreads: workerThreadCount(), timers: keptTimers() };
  while ((same < 20 || Date.now() - started < 2000) && Date.now() - started < 20_000) {
    await Bun.sleep(50);
    const threads = threadCount();
    same = threads === last ? same + 1 : 0;
    last = threads;
    least.threads = Math.min(least.threads, threads);
    least.fds = Math.min(least.fds, fdCount());
    least.workerThreads = Math.min(least.workerThreads, workerThreadCount());
    least.timers = Math.min(least.timers, keptTimers());
  }
  return least;
}

async function sample(i: number, ms: number, dataVersion: number | null) {
  const { fds, threads, workerThreads, timers } = await settled();
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
    fds,
    threads,
    workerThreads,
    timers,
    kinds: [...live.values()].sort().join(", "),
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
  // So is the price index computed ahead for it (a worker with its own connection).
  await server.priceIndex.settled();
  console.log("SAMPLE " + JSON.stringify(await sample(i + 1, ms, report.dataVersion)));
}
await server.stop();
process.exit(0);
