/**
 * HTTP load generator, run as its own process so it does not share an event loop with the
 * server it measures. Loopback only. Two modes:
 *   - closed loop: `concurrency` connections, each sending its next request when the last answered;
 *   - open loop: a fixed `rate` of requests per second on a schedule; latency counts from the
 *     scheduled send time, so a server that falls behind shows it (no coordinated omission).
 * Bounded by `durationS` and/or `maxRequests`.
 *
 *   bun bench/loadgen.ts plan.json [--out samples.bin]     # prints a JSON report on stdout
 *
 * The plan (see LoadPlan) names weighted request kinds; each kind picks one of its paths at random.
 * `--out` writes raw samples (Float64 quadruples: ms since start, latency ms, kind index, status).
 */
import { summarize, type LatencySummary } from "./lib/stats.ts";

export interface RequestKind {
  name: string;
  weight: number;
  method?: "GET" | "POST";
  /** Paths (with query) picked at random. */
  paths: string[];
  headers?: Record<string, string>;
  /** Bodies picked at random (POST); JSON text. */
  bodies?: string[];
  /** Statuses that count as success (default: 200–399). */
  okStatuses?: number[];
}

export interface LoadPlan {
  baseUrl: string;
  kinds: RequestKind[];
  /** Closed loop with this many connections… */
  concurrency?: number;
  /** …or open loop at this many requests per second. */
  rate?: number;
  durationS?: number;
  maxRequests?: number;
  /** Requests sent before measuring (not counted). */
  warmupRequests?: number;
  /** Open loop only: most requests in flight at once (the rest wait their turn). */
  maxInFlight?: number;
  headers?: Record<string, string>;
}

export interface KindReport extends LatencySummary {
  name: string;
  errors: number;
}

export interface LoadReport {
  mode: "closed" | "open";
  concurrency: number | null;
  targetRate: number | null;
  seconds: number;
  requests: number;
  requestsPerSecond: number;
  errors: number;
  statuses: Record<string, number>;
  latency: LatencySummary;
  kinds: KindReport[];
  firstErrors: string[];
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

function chooser(kinds: RequestKind[]): () => number {
  const total = kinds.reduce((a, k) => a + k.weight, 0);
  const cumulative: number[] = [];
  let sum = 0;
  for (const k of kinds) cumulative.push((sum += k.weight / total));
  return () => {
    const r = Math.random();
    for (let i = 0; i < cumulative.length; i++) if (r < cumulative[i]!) return i;
    return cumulative.length - 1;
  };
}

/** Runs a plan and returns its report (and raw samples when asked). */
export async function runLoad(plan: LoadPlan, options: { samples?: boolean } = {}): Promise<{ report: LoadReport; samples: Float64Array | null }> {
  const base = new URL(plan.baseUrl);
  if (!LOOPBACK.has(base.hostname)) throw new Error(`loadgen: refusing non-loopback target ${base.hostname}`);
  if (!plan.concurrency === !plan.rate) throw new Error("loadgen: give exactly one of concurrency and rate");
  if (!plan.durationS && !plan.maxRequests) throw new Error("loadgen: give durationS or maxRequests");
  const kinds = plan.kinds;
  const choose = chooser(kinds);
  const prepared = kinds.map((k) => ({
    method: k.method ?? "GET",
    urls: k.paths.map((p) => new URL(p, base).href),
    headers: { ...plan.headers, ...k.headers },
    bodies: k.bodies ?? [],
    ok: k.okStatuses ? new Set(k.okStatuses) : null,
  }));

  // Samples: start offset ms, latency ms, kind, status (0 = network error).
  let capacity = 1 << 16;
  let samples = new Float64Array(capacity * 4);
  let n = 0;
  let errors = 0;
  const statuses: Record<string, number> = {};
  const firstErrors: string[] = [];
  let measuring = false;
  let t0 = 0;

  const record = (startedAt: number, latency: number, kind: number, status: number, ok: boolean, detail?: string) => {
    if (!measuring) return;
    statuses[status === 0 ? "network" : String(status)] = (statuses[status === 0 ? "network" : String(status)] ?? 0) + 1;
    if (!ok) {
      errors++;
      if (firstErrors.length < 10) firstErrors.push(detail ?? `${kinds[kind]!.name}: status ${status}`);
    }
    if (n === capacity) {
      capacity *= 2;
      const next = new Float64Array(capacity * 4);
      next.set(samples);
      samples = next;
    }
    const o = n * 4;
    samples[o] = startedAt - t0;
    samples[o + 1] = latency;
    samples[o + 2] = kind;
    samples[o + 3] = status;
    n++;
  };

  /** Sends one request; `scheduled` is when it should have gone out (open loop) or now. */
  const send = async (scheduled: number) => {
    const kind = choose();
    const p = prepared[kind]!;
    const url = p.urls[(Math.random() * p.urls.length) | 0]!;
    const init: RequestInit = { method: p.method, headers: p.headers, keepalive: true };
    if (p.method === "POST" && p.bodies.length > 0) init.body = p.bodies[(Math.random() * p.bodies.length) | 0]!;
    try {
      const res = await fetch(url, init);
      const body = await res.arrayBuffer();
      const ok = p.ok ? p.ok.has(res.status) : res.status >= 200 && res.status < 400;
      record(scheduled, performance.now() - scheduled, kind, res.status, ok, ok ? undefined : `${kinds[kind]!.name} ${url.slice(base.href.length - 1)} → ${res.status} ${new TextDecoder().decode(body).slice(0, 200)}`);
    } catch (error) {
      record(scheduled, performance.now() - scheduled, kind, 0, false, `${kinds[kind]!.name}: ${String(error)}`);
    }
  };

  // Warm-up, not measured: every path (and every body of a POST) once, so caches and JIT are
  // as in a server that has been up for a while, then random requests.
  const warm = plan.warmupRequests ?? 0;
  if (warm > 0) {
    const width = Math.min(plan.concurrency ?? 16, 64);
    const everyPath = prepared.flatMap((p) =>
      p.urls.flatMap((url): { p: typeof p; url: string; body: string | undefined }[] =>
        p.method === "POST" && p.bodies.length > 0 ? p.bodies.map((body) => ({ p, url, body })) : [{ p, url, body: undefined }],
      ),
    );
    let next = 0;
    await Promise.all(
      Array.from({ length: width }, async () => {
        while (next < everyPath.length) {
          const { p, url, body } = everyPath[next++]!;
          const init: RequestInit = { method: p.method, headers: p.headers, keepalive: true };
          if (body !== undefined) init.body = body;
          await fetch(url, init).then((r) => r.arrayBuffer()).catch(() => undefined);
        }
      }),
    );
    let left = warm;
    await Promise.all(
      Array.from({ length: width }, async () => {
        while (left-- > 0) await send(performance.now());
      }),
    );
  }

  measuring = true;
  t0 = performance.now();
  const deadline = plan.durationS ? t0 + plan.durationS * 1000 : Infinity;
  const maxRequests = plan.maxRequests ?? Infinity;
  let issued = 0;

  if (plan.concurrency) {
    await Promise.all(
      Array.from({ length: plan.concurrency }, async () => {
        while (issued < maxRequests && performance.now() < deadline) {
          issued++;
          await send(performance.now());
        }
      }),
    );
  } else {
    const rate = plan.rate!;
    const interval = 1000 / rate;
    const maxInFlight = plan.maxInFlight ?? 1024;
    let inFlight = 0;
    const waiting: number[] = [];
    const pending = new Set<Promise<void>>();
    const launch = (scheduled: number) => {
      inFlight++;
      const job = send(scheduled).finally(() => {
        inFlight--;
        pending.delete(job);
        const next = waiting.shift();
        if (next !== undefined) launch(next);
      });
      pending.add(job);
    };
    let nextAt = t0;
    while (issued < maxRequests) {
      const now = performance.now();
      if (nextAt >= deadline) break;
      while (nextAt <= now && issued < maxRequests && nextAt < deadline) {
        issued++;
        if (inFlight < maxInFlight) launch(nextAt);
        else waiting.push(nextAt);
        nextAt += interval;
      }
      // Whole-millisecond ticks: shorter sleeps spin the CPU the server needs. A request sent up
      // to a tick late still counts its latency from its scheduled time.
      const wait = nextAt - performance.now();
      await Bun.sleep(wait > 1 ? Math.floor(wait) : 1);
    }
    while (pending.size > 0 || waiting.length > 0) await Promise.all([...pending]);
  }
  const seconds = (performance.now() - t0) / 1000;
  measuring = false;

  const all = new Float64Array(n);
  const perKind: number[][] = kinds.map(() => []);
  const perKindErrors = kinds.map(() => 0);
  for (let i = 0; i < n; i++) {
    all[i] = samples[i * 4 + 1]!;
    const kind = samples[i * 4 + 2]!;
    perKind[kind]!.push(all[i]!);
    const status = samples[i * 4 + 3]!;
    const ok = prepared[kind]!.ok ? prepared[kind]!.ok!.has(status) : status >= 200 && status < 400;
    if (!ok) perKindErrors[kind]!++;
  }
  const report: LoadReport = {
    mode: plan.concurrency ? "closed" : "open",
    concurrency: plan.concurrency ?? null,
    targetRate: plan.rate ?? null,
    seconds,
    requests: n,
    requestsPerSecond: n / seconds,
    errors,
    statuses,
    latency: summarize(all),
    kinds: kinds.map((k, i) => ({ name: k.name, errors: perKindErrors[i]!, ...summarize(perKind[i]!) })),
    firstErrors,
  };
  return { report, samples: options.samples ? samples.slice(0, n * 4) : null };
}

if (import.meta.main) {
  const [planFile, ...rest] = process.argv.slice(2);
  if (!planFile) {
    console.error("usage: bun bench/loadgen.ts plan.json [--out samples.bin]");
    process.exit(2);
  }
  const outIndex = rest.indexOf("--out");
  const out = outIndex >= 0 ? rest[outIndex + 1] : undefined;
  const plan = (await Bun.file(planFile).json()) as LoadPlan;
  const { report, samples } = await runLoad(plan, { samples: Boolean(out) });
  if (out && samples) await Bun.write(out, samples.buffer);
  console.log(JSON.stringify(report));
}
