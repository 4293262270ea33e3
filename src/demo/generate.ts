import type { Chain, Registry } from "../registry.ts";
import { toIsraelIso } from "../time.ts";
import { log as logger } from "../log.ts";
import { generateChains, type ChainResult, type DemoRun } from "./generate-chains.ts";
import type { GenerateReply, GenerateRequest } from "./generate-worker.ts";
import { profileFor } from "./profiles.ts";
import { seedStoreCount } from "./seed.ts";
import { workerSpecifier } from "../workers.ts";

export interface GenerateOptions {
  registry: Registry;
  /** Folder to write into; one sub-folder per chain slug. */
  outDir: string;
  /** Same seed and same `now` → byte-identical files. Default 1. */
  seed?: number;
  /**
   * The moment the demo is "today": snapshots are dated just before it. It moves only the dates:
   * the numbers (prices, promotions) depend on the seed alone (see DEMO_ANCHOR). Default: the current time.
   */
  now?: Date;
  /** Only these chain slugs (default: every active chain of the registry). */
  chains?: string[];
  /** Fraction of each chain's assortment to generate (tests use ~0.03). Default 1. */
  scale?: number;
  /** Months of history. Default 24. */
  months?: number;
  /** Share the chains with a worker thread (a second core). Default true. */
  parallel?: boolean;
  /**
   * Generate nothing on the calling thread: both shares go to worker threads, so a server's
   * thread stays free to answer (its /healthz and /readyz during a first start). Default false.
   */
  offThread?: boolean;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
}

export interface DemoReport {
  seed: number;
  now: string;
  outDir: string;
  /** Oldest and newest file time. */
  from: string;
  to: string;
  chains: number;
  stores: number;
  files: number;
  bytes: number;
  rows: { stores: number; prices: number; promotions: number; promotionItems: number };
  millis: number;
  perChain: Record<string, { stores: number; files: number; bytes: number; priceRows: number }>;
}

/**
 * Writes the demo dataset: for every active chain of the registry, the files it really
 * publishes (dialect, names, encoding, compression, quirks) for 24 months of history.
 * Inactive chains (stopped publishing) get none. Chains are independent, so a worker thread
 * can write half of them; the bytes are the same either way.
 *
 * @example await generateDemo({ registry: loadRegistry(), outDir: "demo-files", seed: 1 })
 */
export async function generateDemo(options: GenerateOptions): Promise<DemoReport> {
  const started = performance.now();
  const wanted = options.chains ? new Set(options.chains) : null;
  if (wanted) for (const slug of wanted) if (!options.registry.bySlug.has(slug)) throw new Error(`unknown chain ${slug}`);
  const chains = options.registry.chains.filter((c) => (wanted ? wanted.has(c.slug) : c.active));
  const run: DemoRun = {
    outDir: options.outDir,
    seed: options.seed ?? 1,
    now: (options.now ?? new Date()).getTime(),
    months: options.months ?? 24,
    scale: options.scale ?? 1,
  };
  const log = (r: ChainResult) => options.log?.("demo chain written", { chain: r.slug, stores: r.stores, files: r.files, price_rows: r.rows.prices });

  let results: ChainResult[];
  if (options.parallel === false || chains.length < 4) {
    results = await generateChains(chains, run, log);
  } else {
    const [mine, theirs] = split(chains);
    // A worker that cannot start (a binary built without its entrypoint) leaves its share to this
    // thread — said in a warning, since the demo then takes twice as long and blocks this thread.
    const here = (share: Chain[]) => generateChains(share, run, log);
    const orHere = (share: Chain[]) => (error: Error) => {
      logger.warn("demo: generate worker unavailable, generating its chains on this thread", { error: error.message });
      return here(share);
    };
    const first = options.offThread ? inWorker(mine, run).catch(orHere(mine)) : here(mine);
    const [a, b] = await Promise.all([first, inWorker(theirs, run).catch(orHere(theirs))]);
    results = [...a, ...b];
  }

  const bySlug = new Map(results.map((r) => [r.slug, r]));
  const report: DemoReport = {
    seed: run.seed,
    now: toIsraelIso(new Date(run.now)),
    outDir: options.outDir,
    from: "",
    to: "",
    chains: 0,
    stores: 0,
    files: 0,
    bytes: 0,
    rows: { stores: 0, prices: 0, promotions: 0, promotionItems: 0 },
    millis: 0,
    perChain: {},
  };
  let from = Infinity;
  let to = -Infinity;
  for (const chain of chains) {
    const r = bySlug.get(chain.slug)!;
    from = Math.min(from, r.from);
    to = Math.max(to, r.to);
    report.chains++;
    report.stores += r.stores;
    report.files += r.files;
    report.bytes += r.bytes;
    for (const key of Object.keys(report.rows) as (keyof DemoReport["rows"])[]) report.rows[key] += r.rows[key];
    report.perChain[chain.slug] = { stores: r.stores, files: r.files, bytes: r.bytes, priceRows: r.rows.prices };
  }
  report.from = Number.isFinite(from) ? toIsraelIso(new Date(from)) : "";
  report.to = Number.isFinite(to) ? toIsraelIso(new Date(to)) : "";
  report.millis = Math.round(performance.now() - started);
  return report;
}

/** Two shares of about equal work (stores × assortment), alternating from the largest. */
function split(chains: Chain[]): [Chain[], Chain[]] {
  const weight = (c: Chain) => (seedStoreCount(c.slug) ?? 3) * (profileFor(c).assortment === "convenience" ? 0.4 : 1);
  const sorted = [...chains].sort((a, b) => weight(b) - weight(a) || a.slug.localeCompare(b.slug));
  const shares: [Chain[], Chain[]] = [[], []];
  const load = [0, 0];
  for (const chain of sorted) {
    const i = load[0]! <= load[1]! ? 0 : 1;
    shares[i].push(chain);
    load[i] += weight(chain);
  }
  return shares;
}

function inWorker(chains: Chain[], run: DemoRun): Promise<ChainResult[]> {
  if (chains.length === 0) return Promise.resolve([]);
  return new Promise((resolve, reject) => {
    let worker: Worker;
    try {
      worker = new Worker(workerSpecifier("demo/generate-worker.ts"));
    } catch (error) {
      reject(error);
      return;
    }
    worker.onmessage = (event: MessageEvent<GenerateReply>) => {
      worker.terminate();
      if (event.data.kind === "done") resolve(event.data.results);
      else reject(new Error(`demo worker: ${event.data.message}`));
    };
    worker.onerror = (event) => {
      worker.terminate();
      reject(new Error(`demo worker: ${event.message}`));
    };
    worker.postMessage({ run, chains } satisfies GenerateRequest);
  });
}
