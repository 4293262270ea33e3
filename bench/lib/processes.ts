import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import type { LoadPlan, LoadReport } from "../loadgen.ts";
import { childEnv } from "./allocator.ts";

const BUN = process.execPath;
const BENCH = resolve(import.meta.dir, "..");
export const LOG_DIR = resolve(BENCH, "..", ".bench-data", "logs");

export interface ServerProcess {
  url: string;
  pid: number;
  proc: Subprocess;
  /** Current and peak resident set size of the process, bytes (from /proc). */
  memory(): { rss: number; peak: number };
  stop(): Promise<void>;
}

function procStatus(pid: number): { rss: number; peak: number } {
  try {
    const text = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(text)?.[1] ?? NaN) * 1024;
    return { rss: kb("VmRSS"), peak: kb("VmHWM") };
  } catch {
    return { rss: NaN, peak: NaN };
  }
}

/** Starts a server script as a child process and waits until it wrote its ready file. */
async function startChild(name: string, script: string, args: string[], env: Record<string, string>): Promise<ServerProcess> {
  mkdirSync(LOG_DIR, { recursive: true });
  const ready = join(LOG_DIR, `${name}-${process.pid}.ready`);
  rmSync(ready, { force: true });
  const log = join(LOG_DIR, `${name}.log`);
  // Bun.file as stdout does not truncate: a shorter run would leave the previous run's last lines behind.
  rmSync(log, { force: true });
  // BENCH_PROFILE=DIR: CPU profile of the server children, as Markdown (see `bun --cpu-prof-md`);
  // with BENCH_PROFILE_FORMAT=json a Chrome .cpuprofile instead (it keeps the timeline).
  const format = process.env.BENCH_PROFILE_FORMAT === "json" ? "--cpu-prof" : "--cpu-prof-md";
  const profile = process.env.BENCH_PROFILE ? [format, `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  const proc = Bun.spawn([BUN, ...profile, join(BENCH, script), ...args, "--ready-file", ready], {
    env: childEnv(process.env, env),
    stdout: Bun.file(log),
    stderr: Bun.file(join(LOG_DIR, `${name}.err`)),
  });
  const started = Date.now();
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${name} exited with ${proc.exitCode}; see ${LOG_DIR}/${name}.err`);
    try {
      const info = JSON.parse(readFileSync(ready, "utf8")) as { url: string; pid: number };
      rmSync(ready, { force: true });
      return {
        url: info.url,
        pid: info.pid,
        proc,
        memory: () => procStatus(info.pid),
        async stop() {
          proc.kill("SIGTERM");
          const timer = setTimeout(() => proc.kill("SIGKILL"), 10_000);
          await proc.exited;
          clearTimeout(timer);
        },
      };
    } catch {
      if (Date.now() - started > 120_000) {
        proc.kill("SIGKILL");
        throw new Error(`${name} did not start within 120 s`);
      }
      await Bun.sleep(50);
    }
  }
}

/** The real server (startServer) on a data dir, with extra MEHIR_* settings; resolves once /readyz answers 200. */
export async function startApi(dataDir: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await startApiListening(dataDir, env);
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    const res = await fetch(`${server.url}/readyz`).catch(() => null);
    if (res?.status === 200) return server;
    await Bun.sleep(100);
  }
  await server.stop();
  throw new Error("server not ready (GET /readyz) after 180 s");
}

/** The real server on a data dir, as soon as it listens (before /readyz says 200). */
export function startApiListening(dataDir: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  return startChild("api", "lib/serve-api.ts", ["--data-dir", dataDir], env);
}

/** The bare Bun.serve baseline, with extra environment (the allocator's setting, to match the server's). */
export function startBare(env: Record<string, string> = {}): Promise<ServerProcess> {
  return startChild("bare", "lib/serve-bare.ts", [], env);
}

/** CPU seconds (user + system) a process used so far, from /proc. */
export function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** Busy and total CPU seconds of the whole machine, from /proc/stat. */
function machineSeconds(): { busy: number; total: number } {
  const values = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = values.reduce((a, b) => a + b, 0) / 100;
  const idle = (values[3]! + values[4]!) / 100;
  return { busy: total - idle, total };
}

/** Where the CPU went during a measured run, in cores (1 = one core fully busy). */
export interface CpuShare {
  server: number;
  loadgen: number;
  /** Everything else on the machine (other people's work on a shared box). */
  other: number;
  /** Server CPU per answered request, µs. */
  serverUsPerRequest: number;
}

export interface LoadgenRun {
  report: LoadReport;
  samples: Float64Array | null;
  cpu: CpuShare | null;
}

/** Runs bench/loadgen.ts in its own process on a plan; returns its report (and samples when asked). */
export async function runLoadgen(plan: LoadPlan, options: { samples?: boolean; serverPid?: number } = {}): Promise<LoadgenRun> {
  mkdirSync(LOG_DIR, { recursive: true });
  const planFile = join(LOG_DIR, `plan-${process.pid}.json`);
  const samplesFile = join(LOG_DIR, `samples-${process.pid}.bin`);
  await Bun.write(planFile, JSON.stringify(plan));
  const args = [BUN, join(BENCH, "loadgen.ts"), planFile];
  if (options.samples) args.push("--out", samplesFile);
  const server0 = options.serverPid ? cpuSeconds(options.serverPid) : NaN;
  const machine0 = machineSeconds();
  const wall0 = performance.now();
  const proc = Bun.spawn(args, { stdout: "pipe", stderr: "inherit" });
  const text = await new Response(proc.stdout).text();
  const code = await proc.exited;
  const wall = (performance.now() - wall0) / 1000;
  const machine1 = machineSeconds();
  const server = options.serverPid ? (cpuSeconds(options.serverPid) - server0) / wall : NaN;
  const usage = proc.resourceUsage();
  const loadgen = usage ? (Number(usage.cpuTime.user) + Number(usage.cpuTime.system)) / 1e6 / wall : NaN;
  const busy = (machine1.busy - machine0.busy) / wall;
  if (code !== 0) throw new Error(`loadgen exited with ${code}`);
  const report = JSON.parse(text.trim().split("\n").pop()!) as LoadReport;
  let samples: Float64Array | null = null;
  if (options.samples) {
    samples = new Float64Array(await Bun.file(samplesFile).arrayBuffer());
    rmSync(samplesFile, { force: true });
  }
  rmSync(planFile, { force: true });
  const cpu: CpuShare | null = options.serverPid
    ? {
        server,
        loadgen,
        other: Math.max(0, busy - server - loadgen),
        serverUsPerRequest: ((server * wall) / Math.max(1, report.requests)) * 1e6,
      }
    : null;
  return { report, samples, cpu };
}
