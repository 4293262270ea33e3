/**
 * `wrk` (Debian package; C, epoll, one thread here) as the external load generator of the HTTP
 * bench: unlike a Bun load generator it costs little CPU per request and does not inflate gzip,
 * so the server, not the generator, is what saturates. Round-robin over the given paths through
 * a Lua script whose `done` hook prints the figures as one JSON line.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cpuSeconds, LOG_DIR, type CpuShare } from "./processes.ts";

export interface WrkPlan {
  baseUrl: string;
  paths: string[];
  headers?: Record<string, string>;
  connections: number;
  seconds: number;
  /** Default 1: one generator thread (one core at most). */
  threads?: number;
  /** POST these JSON bodies, round-robin, to the paths (default: GET). */
  bodies?: string[];
}

export interface WrkReport {
  requests: number;
  requestsPerSecond: number;
  /** Non-2xx/3xx answers, socket errors and timeouts. */
  errors: number;
  latency: { p50: number; p90: number; p99: number; max: number; mean: number };
}

/**
 * The wrk binary, installed from Debian when absent and possible (root with apt-get), or the
 * reason it is not available.
 */
export function findWrk(): { path: string } | { skip: string } {
  const found = Bun.which("wrk");
  if (found) return { path: found };
  if (!Bun.which("apt-get")) return { skip: "wrk is not installed and there is no apt-get to install it (Debian: apt-get install wrk)" };
  if (process.getuid?.() !== 0) return { skip: "wrk is not installed and installing it needs root (apt-get install wrk)" };
  console.error("[wrk] installing wrk from Debian (apt-get install wrk)");
  const install = Bun.spawnSync(["apt-get", "install", "-y", "-qq", "wrk"], { env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" }, stdout: "ignore", stderr: "pipe" });
  const path = Bun.which("wrk");
  if (install.exitCode === 0 && path) return { path };
  return { skip: `wrk could not be installed (apt-get install wrk: ${install.stderr.toString().trim().split("\n").pop() ?? `exit ${install.exitCode}`})` };
}

// JSON string escapes are valid Lua string escapes for ASCII (the paths and bodies here are ASCII).
const luaString = (s: string) => JSON.stringify(s);

function script(plan: WrkPlan): string {
  const headers = Object.entries(plan.headers ?? {})
    .map(([k, v]) => `wrk.headers[${luaString(k)}] = ${luaString(v)}`)
    .join("\n");
  return `
local paths = { ${plan.paths.map(luaString).join(", ")} }
local bodies = { ${(plan.bodies ?? []).map(luaString).join(", ")} }
local i = 0
${headers}
request = function()
  i = i + 1
  if #bodies > 0 then
    return wrk.format("POST", paths[(i % #paths) + 1], nil, bodies[(i % #bodies) + 1])
  end
  return wrk.format("GET", paths[(i % #paths) + 1])
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRK_JSON {"requests":%d,"duration_us":%d,"errors":%d,"p50":%.1f,"p90":%.1f,"p99":%.1f,"max":%.1f,"mean":%.1f}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
`;
}

/** Busy CPU seconds of the whole machine, from /proc/stat. */
function machineBusySeconds(): number {
  const v = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  return (v.reduce((a, b) => a + b, 0) - v[3]! - v[4]!) / 100;
}

/**
 * Runs wrk on a plan against a server process; returns its figures and where the CPU went
 * (server, wrk, everything else on the machine), in cores.
 */
export async function runWrk(wrk: string, plan: WrkPlan, serverPid: number): Promise<{ report: WrkReport; cpu: CpuShare }> {
  mkdirSync(LOG_DIR, { recursive: true });
  const file = join(LOG_DIR, `wrk-${process.pid}.lua`);
  writeFileSync(file, script(plan));
  const server0 = cpuSeconds(serverPid);
  const busy0 = machineBusySeconds();
  const wall0 = performance.now();
  const proc = Bun.spawn([wrk, "-t", String(plan.threads ?? 1), "-c", String(plan.connections), "-d", `${plan.seconds}s`, "--timeout", "10s", "-s", file, plan.baseUrl], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const wall = (performance.now() - wall0) / 1000;
  const server = (cpuSeconds(serverPid) - server0) / wall;
  const busy = (machineBusySeconds() - busy0) / wall;
  rmSync(file, { force: true });
  const line = out.split("\n").find((l) => l.startsWith("WRK_JSON "));
  if (code !== 0 || !line) throw new Error(`wrk exited with ${code}: ${err.trim() || out.trim()}`);
  const raw = JSON.parse(line.slice("WRK_JSON ".length)) as { requests: number; duration_us: number; errors: number; p50: number; p90: number; p99: number; max: number; mean: number };
  const usage = proc.resourceUsage();
  const loadgen = usage ? (Number(usage.cpuTime.user) + Number(usage.cpuTime.system)) / 1e6 / wall : NaN;
  const msOf = (us: number) => us / 1000;
  const report: WrkReport = {
    requests: raw.requests,
    requestsPerSecond: raw.requests / (raw.duration_us / 1e6),
    errors: raw.errors,
    latency: { p50: msOf(raw.p50), p90: msOf(raw.p90), p99: msOf(raw.p99), max: msOf(raw.max), mean: msOf(raw.mean) },
  };
  return {
    report,
    cpu: { server, loadgen, other: Math.max(0, busy - server - loadgen), serverUsPerRequest: ((server * wall) / Math.max(1, raw.requests)) * 1e6 },
  };
}
