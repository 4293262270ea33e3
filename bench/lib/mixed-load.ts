import type { RequestKind } from "../loadgen.ts";
import { runLoadgen, startBare, type CpuShare, type LoadgenRun, type ServerProcess } from "./processes.ts";
import { int } from "./stats.ts";

/**
 * The pieces the mixed-load benches (bench/load.ts, bench/operations.ts) share: which routes a
 * build has, a check that every request kind answers, warm-up, the mix's capacity, and the bare
 * Bun.serve baseline at a rate.
 */

/** Which of the optional routes this build has (from its own OpenAPI document). */
export async function routesOf(api: ServerProcess): Promise<Set<string>> {
  const doc = (await (await fetch(`${api.url}/docs/json`)).json()) as { paths: Record<string, unknown> };
  return new Set(Object.keys(doc.paths).map((p) => p.replace(/\/$/, "")));
}

/**
 * Sends the first `perKind` paths (and bodies) of every kind once, one at a time, and throws,
 * naming each failing kind with its status and answer, unless every one answers 200 with data
 * (`data` not an empty list): a kind that errors or answers nothing must stop the bench, not be
 * measured. Returns, per kind, the slowest of these first answers after start (ms): what a cold
 * cache costs (the first of a data version, for answers computed once per version).
 */
export async function checkKinds(baseUrl: string, kinds: RequestKind[], perKind = 3): Promise<number[]> {
  const failures: string[] = [];
  const cold: number[] = [];
  for (const kind of kinds) {
    let slowest = 0;
    const tries = kind.method === "POST" ? (kind.bodies ?? []).slice(0, perKind).map((body) => ({ path: kind.paths[0]!, body })) : kind.paths.slice(0, perKind).map((path) => ({ path, body: undefined }));
    for (const { path, body } of tries) {
      const sent = performance.now();
      const res = await fetch(new URL(path, baseUrl), { method: kind.method ?? "GET", headers: kind.headers, body });
      const text = await res.text();
      slowest = Math.max(slowest, performance.now() - sent);
      let empty = false;
      try {
        const data = (JSON.parse(text) as { data?: unknown }).data;
        empty = data === undefined || (Array.isArray(data) && data.length === 0);
      } catch {
        empty = true;
      }
      if (res.status !== 200 || empty) failures.push(`${kind.name}: ${kind.method ?? "GET"} ${path} → ${res.status}${empty ? " (no data)" : ""} ${text.slice(0, 300)}`);
    }
    cold.push(slowest);
  }
  if (failures.length > 0) throw new Error(`request kinds that do not answer 200 with data:\n  ${failures.join("\n  ")}`);
  return cold;
}

/** Every path (and POST body) once, then 2,000 random requests, none measured: caches and JIT as in a server that has been up. */
export async function warmUp(api: ServerProcess, kinds: RequestKind[]): Promise<void> {
  await runLoadgen({ baseUrl: api.url, kinds, concurrency: 32, warmupRequests: 1, maxRequests: 2000 });
}

export interface Capacity {
  rps: number;
  p99: number;
  cpu: CpuShare | null;
}

/** Requests per second a (warm) server answers for the mix: closed loop, 32 connections. */
export async function mixCapacity(api: ServerProcess, kinds: RequestKind[], seconds: number): Promise<Capacity> {
  const { report, cpu } = await runLoadgen({ baseUrl: api.url, kinds, concurrency: 32, durationS: seconds }, { serverPid: api.pid });
  return { rps: report.requestsPerSecond, cpu, p99: report.latency.p99 };
}

/**
 * Server CPU per request of each kind alone (µs): one connection, `seconds` per kind, on a warm
 * server. Robust against other work on the machine, unlike latency; weighted by the mix, it says
 * which kinds the mix's capacity goes to.
 */
export async function kindCosts(api: ServerProcess, kinds: RequestKind[], seconds: number): Promise<number[]> {
  const out: number[] = [];
  for (const kind of kinds) {
    const { cpu } = await runLoadgen({ baseUrl: api.url, kinds: [{ ...kind, weight: 1 }], concurrency: 1, durationS: seconds }, { serverPid: api.pid });
    out.push(cpu?.serverUsPerRequest ?? NaN);
  }
  return out;
}

export interface BareRun extends LoadgenRun {
  seconds: number;
  /** Peak resident set size of the bare server, bytes. */
  rssPeak: number;
}

/** The bare Bun.serve JSON endpoint (a small answer and an 11 KB one, half each) at `rate`, open loop, after a 2 s warm-up. */
export async function bareBaseline(rate: number, seconds: number): Promise<BareRun> {
  const bare = await startBare();
  try {
    const kinds: RequestKind[] = [
      { name: "bare small", weight: 1, paths: ["/small"] },
      { name: "bare 11 KB", weight: 1, paths: ["/answer"] },
    ];
    await runLoadgen({ baseUrl: bare.url, kinds, rate, maxRequests: rate * 2, warmupRequests: 1 });
    const run = await runLoadgen({ baseUrl: bare.url, kinds, rate, durationS: seconds }, { serverPid: bare.pid });
    return { ...run, seconds, rssPeak: bare.memory().peak };
  } finally {
    await bare.stop();
  }
}

/** Samples a server's resident set size every second until stopped. */
export function rssSampler(api: ServerProcess): { stop(): { peak: number; end: number } } {
  const samples: number[] = [];
  const poll = setInterval(() => samples.push(api.memory().rss), 1000);
  return {
    stop() {
      clearInterval(poll);
      samples.push(api.memory().rss);
      return { peak: Math.max(...samples), end: samples[samples.length - 1]! };
    },
  };
}

export const mib = (bytes: number) => `${int(bytes / 2 ** 20)} MiB`;

/** Server / loadgen / other CPU, in cores. */
export const cores = (c: CpuShare | null) => (c ? `${c.server.toFixed(2)} / ${c.loadgen.toFixed(2)} / ${c.other.toFixed(2)}` : "–");
