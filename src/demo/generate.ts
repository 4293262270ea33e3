import { join } from "node:path";
import type { Registry } from "../registry.ts";
import { toIsraelIso } from "../time.ts";
import { buildCatalog } from "./catalog.ts";
import { planChain } from "./chain-plan.ts";
import { instant } from "./clock.ts";
import { Random } from "./random.ts";
import { loadSeed } from "./seed.ts";
import { writeChain } from "./write-chain.ts";

export interface GenerateOptions {
  registry: Registry;
  /** Folder to write into; one sub-folder per chain slug. */
  outDir: string;
  /** Same seed and same `now` → byte-identical files. Default 1. */
  seed?: number;
  /** The moment the demo is "today": snapshots are dated just before it. Default: the current time. */
  now?: Date;
  /** Only these chain slugs (default: every active chain of the registry). */
  chains?: string[];
  /** Fraction of each chain's assortment to generate (tests use ~0.03). Default 1. */
  scale?: number;
  /** Months of history. Default 24. */
  months?: number;
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
 * Inactive chains (stopped publishing) get none.
 *
 * @example await generateDemo({ registry: loadRegistry(), outDir: "demo-files", seed: 1 })
 */
export async function generateDemo(options: GenerateOptions): Promise<DemoReport> {
  const started = performance.now();
  const seedNumber = options.seed ?? 1;
  const now = options.now ?? new Date();
  const months = options.months ?? 24;
  const scale = options.scale ?? 1;
  const seed = loadSeed();
  const root = new Random(`mehir-demo:${seedNumber}`);
  const catalog = buildCatalog(seed.products, root.fork("catalog"));
  const wanted = options.chains ? new Set(options.chains) : null;
  const chains = options.registry.chains.filter((c) => (wanted ? wanted.has(c.slug) : c.active));
  if (wanted) for (const slug of wanted) if (!options.registry.bySlug.has(slug)) throw new Error(`unknown chain ${slug}`);

  const report: DemoReport = {
    seed: seedNumber,
    now: toIsraelIso(now),
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
    const plan = planChain(chain, seed, catalog, now, months, scale, root.fork(`chain:${chain.slug}`));
    const output = writeChain(plan, join(options.outDir, chain.slug));
    from = Math.min(from, instant(plan.timeline.storesStart).getTime());
    to = Math.max(to, instant(plan.history.steps.at(-1)!.time).getTime());
    report.chains++;
    report.stores += plan.stores.length;
    report.files += output.files.length;
    report.bytes += output.bytes;
    for (const key of Object.keys(report.rows) as (keyof DemoReport["rows"])[]) report.rows[key] += output.rows[key];
    report.perChain[chain.slug] = { stores: plan.stores.length, files: output.files.length, bytes: output.bytes, priceRows: output.rows.prices };
    options.log?.("demo chain written", { chain: chain.slug, stores: plan.stores.length, files: output.files.length, price_rows: output.rows.prices });
    // Let timers and I/O run between chains.
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  report.from = Number.isFinite(from) ? toIsraelIso(new Date(from)) : "";
  report.to = Number.isFinite(to) ? toIsraelIso(new Date(to)) : "";
  report.millis = Math.round(performance.now() - started);
  return report;
}
