/**
 * Every operation at national size (issue 46, part 3): on the synthetic national database, the
 * real server answers a mix of every read operation — prices (chain, store in a city, every store,
 * stores near a point), 24 months of history, search, a catalog page, a promotions page, baskets of
 * 30 and 100 items, a batch of 100, the chain price index and the basket plan — from bench/loadgen.ts
 * in a separate process:
 *
 *   1. every kind is checked to answer 200 with data (else the bench stops, naming it), on its first
 *      three paths or bodies, one at a time: the slowest of these first answers after start is shown;
 *   2. warm-up (every path and body once, then 2,000 requests), then the mix's capacity: closed
 *      loop, 32 connections;
 *   3. the mix open loop at half that capacity (latency from each request's scheduled send time),
 *      per kind: requests, p50, p99, errors; the server's RSS (sampled each second) and CPU per request;
 *   4. each kind alone (one connection, a few seconds): server CPU per request, and so each kind's
 *      share of the mix's server CPU (weight × CPU per request);
 *   5. the bare Bun.serve JSON endpoint at the same rate (baseline).
 *
 *   bun bench/operations.ts [--scale 1] [--seconds 60] [--capacity-seconds 15] [--kind-seconds 2] [--quick] [--record]
 *
 * --quick: scale 0.05 (unless --scale), 12 s run, 5 s capacity and baseline, 1 s per kind alone. Figures go to
 * bench/RESULTS.md under "## Operations at national size" only with --record. Exits 1 when a
 * request of the timed run failed.
 */
import { ensureNational } from "./national.ts";
import { BENCH_ENV, createBenchKeys } from "./lib/bench-key.ts";
import { makeBaskets } from "./basket.ts";
import { runLoadgen, startApi } from "./lib/processes.ts";
import { catalogPaths, mixData, searchPaths, type MixData } from "./lib/mix-data.ts";
import { bareBaseline, checkKinds, cores, kindCosts, mib, mixCapacity, rssSampler, warmUp } from "./lib/mixed-load.ts";
import { localityCentre } from "../src/geo/locality-centroids.ts";
import { flag, numberOption } from "./lib/args.ts";
import { int, ms } from "./lib/stats.ts";
import { machineLine, table, writeSection } from "./lib/results.ts";
import type { RequestKind } from "./loadgen.ts";

export interface OperationsBenchOptions {
  scale: number;
  /** Seconds of the timed open-loop run. */
  seconds: number;
  /** Seconds of the closed-loop capacity probe (and of the bare baseline, at most 20). */
  capacitySeconds: number;
  /** Seconds of each kind alone (CPU per request). */
  kindSeconds: number;
  record: boolean;
}

/** The rate the mix runs at, as a share of its measured capacity. */
const LOAD_SHARE = 0.5;
const RADIUS_KM = 5;
const started = performance.now();
const say = (msg: string) => console.error(`[operations ${((performance.now() - started) / 1000).toFixed(0)} s] ${msg}`);

/** The first city (most stores first) with a known centre: the `near` point of the mix. */
function nearPoint(d: MixData): { city: string; near: string } {
  for (const city of d.cities) {
    const centre = localityCentre(city);
    if (centre) return { city, near: `${centre.lat},${centre.lon}` };
  }
  throw new Error("operations: no city of the data has a known centre for `near`");
}

/**
 * The mix. Weights (out of 100) follow how often a client would call each operation: single-product
 * prices and search most, the heavy answers (baskets, batch, price index, plan) rarely.
 */
export function operationsMix(d: MixData, keys: { secret: string }): { kinds: RequestKind[]; about: string } {
  const enc = encodeURIComponent;
  const top = (n: number) => d.barcodes.slice(0, n);
  const city = d.cities[0]!;
  const { city: nearCity, near } = nearPoint(d);
  const json = { "content-type": "application/json" };
  const itemsOnly = (bodies: string[]) => bodies.map((b) => JSON.stringify({ items: (JSON.parse(b) as { items: { barcode: string }[] }).items.map((i) => ({ barcode: i.barcode })) }));
  const withFields = (bodies: string[], fields: (i: number) => Record<string, unknown>) => bodies.map((b, i) => JSON.stringify({ ...JSON.parse(b), ...fields(i) }));
  const kinds: RequestKind[] = [
    { name: "prices (chain)", weight: 37, paths: d.barcodes.map((b) => `/api/v1/prices/?barcode=${b}`) },
    { name: "prices (store, city)", weight: 6, paths: top(500).map((b) => `/api/v1/prices/?barcode=${b}&granularity=store&city=${enc(city)}`) },
    { name: `prices (store, near, ${RADIUS_KM} km)`, weight: 6, paths: top(500).map((b) => `/api/v1/prices/?barcode=${b}&granularity=store&near=${near}&radius_km=${RADIUS_KM}`) },
    { name: "prices (store, every store)", weight: 2, paths: top(100).map((b) => `/api/v1/prices/?barcode=${b}&granularity=store`) },
    { name: "history (24 months)", weight: 8, paths: top(500).map((b) => `/api/v1/prices/${b}/history/?months=24`) },
    { name: "search", weight: 15, paths: searchPaths(d).slice(0, 1000) },
    { name: "catalog page", weight: 8, paths: catalogPaths(d) },
    { name: "promotions page", weight: 5, paths: ["/api/v1/promos/feed/?limit=20", ...d.chains.map((c) => `/api/v1/promos/feed/?limit=20&chain_id=${c}`)] },
    { name: "promotions of a product", weight: 1, paths: top(50).map((b) => `/api/v1/promos/feed/?limit=20&barcode=${b}`) },
    { name: "basket (30 items)", weight: 4, method: "POST", paths: ["/api/v1/basket/compare/"], bodies: makeBaskets(d.barcodes, 100, 30, 31), headers: json },
    { name: "basket (100 items)", weight: 2, method: "POST", paths: ["/api/v1/basket/compare/"], bodies: makeBaskets(d.barcodes, 50, 100, 32), headers: json },
    { name: "batch (100 items)", weight: 2, method: "POST", paths: ["/api/v1/prices/batch/"], bodies: itemsOnly(makeBaskets(d.barcodes, 30, 100, 33)), headers: json },
    { name: "price index", weight: 2, paths: ["/api/v1/chains/price-index/", "/api/v1/chains/price-index/?months=24", "/api/v1/chains/price-index/?months=12"] },
    {
      name: "basket plan (30 items)",
      weight: 2,
      method: "POST",
      paths: ["/api/v1/basket/plan/"],
      bodies: withFields(makeBaskets(d.barcodes, 30, 30, 34), (i) => ({ near, radius_km: RADIUS_KM, max_stores: 2 + (i % 2) })),
      headers: json,
    },
  ];
  for (const k of kinds) k.headers = { ...k.headers, "x-api-key": keys.secret };
  const about =
    `store prices in a city: ${city}; near: the centre of ${nearCity} (${near}), ${RADIUS_KM} km; history: \`months=24\`; catalog: first pages of 20 of the 5 biggest chains, whole and per category; ` +
    `promotions: first pages of 20, whole and per chain; of a product: first pages of 20 with \`barcode\`; baskets (compare, chain-wide) and the batch (chain granularity): distinct products drawn from the 2,000 most widely sold, popular ones more often; ` +
    `price index: without history, with 24 and 12 months (computed once per data version and scope: the first answers come during warm-up); ` +
    `basket plan: 30 items, near the same point, ${RADIUS_KM} km, max_stores 2 or 3.`;
  return { kinds, about };
}

export async function operationsBench(options: OperationsBenchOptions): Promise<{ errors: number; markdown: string }> {
  const dataDir = ensureNational(options.scale);
  const keys = createBenchKeys(dataDir, "operations-bench");
  const starting = performance.now();
  const api = await startApi(dataDir, BENCH_ENV);
  const readySeconds = (performance.now() - starting) / 1000;
  const rssReady = api.memory().rss;
  let measured;
  try {
    const { kinds, about } = operationsMix(mixData(dataDir), keys);
    say(`server ready in ${readySeconds.toFixed(1)} s; checking ${kinds.length} kinds`);
    const firstAnswers = await checkKinds(api.url, kinds);
    say("warm-up");
    await warmUp(api, kinds);
    say(`capacity (${options.capacitySeconds} s)`);
    const cap = await mixCapacity(api, kinds, options.capacitySeconds);
    const rate = Math.max(10, Math.floor((cap.rps * LOAD_SHARE) / 10) * 10);
    say(`capacity ${int(cap.rps)} req/s; the mix at ${rate} req/s for ${options.seconds} s`);
    const rss = rssSampler(api);
    const run = await runLoadgen({ baseUrl: api.url, kinds, rate, durationS: options.seconds, maxInFlight: 2048 }, { serverPid: api.pid });
    const memory = rss.stop();
    say(`each kind alone, ${options.kindSeconds} s each`);
    const costs = await kindCosts(api, kinds, options.kindSeconds);
    measured = { kinds, about, firstAnswers, cap, rate, run, memory, costs };
  } finally {
    await api.stop();
  }
  const { kinds, about, firstAnswers, cap, rate, run, memory, costs } = measured;
  const baselineSeconds = Math.min(20, options.capacitySeconds);
  say(`bare Bun.serve at ${rate} req/s for ${baselineSeconds} s`);
  const bare = await bareBaseline(rate, baselineSeconds);

  const head = ["run", "req/s", "p50 ms", "p99 ms", "max ms", "errors", "server RSS", "server µs CPU/req", "CPU: server / loadgen / other (cores)"];
  const us = (c: typeof cap.cpu) => (c ? int(c.serverUsPerRequest) : "–");
  const rows = [
    [`bare Bun.serve at ${int(rate)} req/s (${baselineSeconds} s)`, int(bare.report.requestsPerSecond), ms(bare.report.latency.p50), ms(bare.report.latency.p99), ms(bare.report.latency.max), String(bare.report.errors), `${mib(bare.rssPeak)} peak`, us(bare.cpu), cores(bare.cpu)],
    [`mehir capacity for the mix (closed loop, 32 connections, ${options.capacitySeconds} s)`, int(cap.rps), "", ms(cap.p99), "", "", "", us(cap.cpu), cores(cap.cpu)],
    [
      `mehir at ${int(rate)} req/s (${LOAD_SHARE * 100} % of capacity, ${options.seconds} s)`,
      int(run.report.requestsPerSecond),
      ms(run.report.latency.p50),
      ms(run.report.latency.p99),
      ms(run.report.latency.max),
      String(run.report.errors),
      `${mib(memory.peak)} peak, ${mib(memory.end)} at end (${mib(rssReady)} when ready)`,
      us(run.cpu),
      cores(run.cpu),
    ],
  ];
  const mixCost = kinds.reduce((sum, k, i) => sum + k.weight * costs[i]!, 0);
  const perKind = run.report.kinds.map((k, i) => [
    k.name,
    kinds[i]!.weight,
    int(k.count),
    ms(k.p50),
    ms(k.p99),
    ms(k.max),
    String(k.errors),
    ms(firstAnswers[i]!),
    int(costs[i]!),
    `${((100 * kinds[i]!.weight * costs[i]!) / mixCost).toFixed(1)} %`,
  ]);
  const markdown = [
    machineLine(`scale ${options.scale}, open loop (latency counted from each request's scheduled send time), server ready ${readySeconds.toFixed(0)} s after start`),
    "",
    table(head, rows),
    "",
    `Per kind at ${int(rate)} req/s (weights out of 100; "cold" is the slowest of the kind's first three requests after start, one at a time, before the warm-up: the price index's are its first computations of the data version):`,
    "",
    table(["kind", "weight", "requests", "p50 ms", "p99 ms", "max ms", "errors", "cold ms", "alone: server µs CPU/req", "share of the mix's server CPU"], perKind),
    "",
    `The mix: ${about}`,
    `Status counts: ${Object.entries(run.report.statuses).map(([s, n]) => `${s}: ${int(n)}`).join(", ")}.` +
      (run.report.firstErrors.length ? ` First errors: ${run.report.firstErrors.slice(0, 3).join(" | ").slice(0, 600)}` : ""),
  ].join("\n");
  if (options.record && run.report.errors === 0) writeSection("Operations at national size", markdown);
  return { errors: run.report.errors, markdown };
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const quick = flag(args, "quick");
  const { errors, markdown } = await operationsBench({
    scale: numberOption(args, "scale", quick ? 0.05 : 1),
    seconds: numberOption(args, "seconds", quick ? 12 : 60),
    capacitySeconds: numberOption(args, "capacity-seconds", quick ? 5 : 15),
    kindSeconds: numberOption(args, "kind-seconds", quick ? 1 : 2),
    record: flag(args, "record"),
  });
  console.log(markdown);
  if (errors > 0) {
    console.error(`[operations] ${errors} requests failed in the timed run${flag(args, "record") ? ": not recorded" : ""}`);
    process.exit(1);
  }
}
