import type { Chain, Registry } from "../registry.ts";
import { toIsraelIso } from "../lib/time.ts";
import { log as logger } from "../lib/log.ts";
import { ChainWriter, generateChains, type ChainResult, type DemoRun } from "./generate-chains.ts";
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
 * Retired chains get none; merged ones (publishing through another chain) do. Chains are independent, so two threads share
 * them (see generateShared); the bytes are the same either way.
 *
 * @example await generateDemo({ registry: loadRegistry(), outDir: "demo-files", seed: 1 })
 */
export async function generateDemo(options: GenerateOptions): Promise<DemoReport> {
  const started = performance.now();
  const wanted = options.chains ? new Set(options.chains) : null;
  if (wanted) for (const slug of wanted) if (!options.registry.bySlug.has(slug)) throw new Error(`unknown chain ${slug}`);
  // Merged chains still publish (through the chain they folded into): they keep demo data.
  const chains = options.registry.chains.filter((c) => (wanted ? wanted.has(c.slug) : c.active || !!c.inactive?.merged_into));
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
    results = await generateShared(chains, run, options.offThread === true, log);
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

/**
 * Two threads write the chains, each taking the next one (largest first) as soon as it is free:
 * both finish within about one small chain of each other, whatever a chain really costs. The
 * threads are two workers, or one worker and this thread. A worker that cannot start or fails
 * (a binary built without its entrypoint) leaves its chains to the other worker, or to this
 * thread when neither works — said in a warning, since the demo then takes longer and may block
 * this thread.
 */
async function generateShared(chains: Chain[], run: DemoRun, offThread: boolean, log: (r: ChainResult) => void): Promise<ChainResult[]> {
  const queue = bySizeDescending(chains);
  const results: ChainResult[] = [];
  const workerThread = async () => {
    let worker: GenerateThread;
    try {
      worker = new GenerateThread();
    } catch (error) {
      warnUnavailable(error as Error);
      return;
    }
    try {
      for (let chain = queue.shift(); chain; chain = queue.shift()) {
        try {
          results.push(await worker.write(chain, run));
        } catch (error) {
          // Its files are written again from the start, by another thread.
          queue.unshift(chain);
          warnUnavailable(error as Error);
          return;
        }
        log(results.at(-1)!);
      }
    } finally {
      worker.terminate();
    }
  };
  const thisThread = async () => {
    let writer: ChainWriter | null = null;
    for (let chain = queue.shift(); chain; chain = queue.shift()) {
      writer ??= new ChainWriter(run);
      results.push(writer.write(chain));
      log(results.at(-1)!);
      // Let timers and I/O run between chains.
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  };
  await Promise.all([offThread ? workerThread() : thisThread(), workerThread()]);
  // What failed workers left.
  if (queue.length > 0) await thisThread();
  return results;
}

function warnUnavailable(error: Error): void {
  logger.warn("demo: generate worker unavailable, its chains go to the other thread or this one", { error: error.message });
}

/** Largest first (stores × assortment), so the last chains handed out are the smallest. */
function bySizeDescending(chains: Chain[]): Chain[] {
  const weight = (c: Chain) => (seedStoreCount(c.slug) ?? 3) * (profileFor(c).assortment === "convenience" ? 0.4 : 1);
  return [...chains].sort((a, b) => weight(b) - weight(a) || a.slug.localeCompare(b.slug));
}

/** A generate worker (src/demo/generate-worker.ts) writing one chain at a time. */
class GenerateThread {
  private readonly worker = new Worker(workerSpecifier("demo/generate-worker.ts"));
  private pending: { resolve: (r: ChainResult) => void; reject: (e: Error) => void } | null = null;
  /** An error the worker raised between two chains (its modules did not load): the next write fails with it. */
  private failed: Error | null = null;

  constructor() {
    this.worker.onmessage = (event: MessageEvent<GenerateReply>) => {
      const pending = this.pending;
      this.pending = null;
      if (event.data.kind === "done") pending?.resolve(event.data.result);
      else pending?.reject(new Error(`demo worker: ${event.data.message}`));
    };
    this.worker.onerror = (event) => {
      const error = new Error(`demo worker: ${event.message}`);
      if (this.pending) this.pending.reject(error);
      else this.failed = error;
      this.pending = null;
    };
  }

  write(chain: Chain, run: DemoRun): Promise<ChainResult> {
    return new Promise((resolve, reject) => {
      if (this.failed) return reject(this.failed);
      this.pending = { resolve, reject };
      this.worker.postMessage({ run, chain } satisfies GenerateRequest);
    });
  }

  terminate(): void {
    this.worker.terminate();
  }
}
