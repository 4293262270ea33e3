import { join } from "node:path";
import type { Chain } from "../registry.ts";
import { buildCatalog, type Catalog } from "./catalog.ts";
import { planChain } from "./chain-plan.ts";
import { instant } from "./clock.ts";
import { Random } from "./random.ts";
import { loadSeed } from "./seed.ts";
import { writeChain, type ChainOutput } from "./write-chain.ts";

/** What every chain of one demo shares (plain data: it crosses to worker threads). */
export interface DemoRun {
  outDir: string;
  seed: number;
  /** Epoch milliseconds of the demo's "today". */
  now: number;
  months: number;
  scale: number;
}

export interface ChainResult {
  slug: string;
  stores: number;
  files: number;
  bytes: number;
  rows: ChainOutput["rows"];
  /** Epoch ms of the chain's first and last file. */
  from: number;
  to: number;
}

/**
 * Writes chains of one demo run, one at a time, into `<outDir>/<slug>/`. The seed's catalog is
 * built once per writer. Each chain draws from its own random stream, so the bytes do not
 * depend on which chains one writer gets, in which order, or in which thread.
 *
 * @example const writer = new ChainWriter(run); const result = writer.write(chain);
 */
export class ChainWriter {
  private readonly seed = loadSeed();
  private readonly root: Random;
  private readonly catalog: Catalog;

  constructor(readonly run: DemoRun) {
    this.root = new Random(`mehir-demo:${run.seed}`);
    this.catalog = buildCatalog(this.seed.products, this.root.fork("catalog"));
  }

  write(chain: Chain): ChainResult {
    const run = this.run;
    const plan = planChain(chain, this.seed, this.catalog, new Date(run.now), run.months, run.scale, this.root.fork(`chain:${chain.slug}`));
    const output = writeChain(plan, join(run.outDir, chain.slug));
    return {
      slug: chain.slug,
      stores: plan.stores.length,
      files: output.files.length,
      bytes: output.bytes,
      rows: output.rows,
      from: instant(plan.timeline.storesStart).getTime(),
      to: instant(plan.history.steps.at(-1)!.time).getTime(),
    };
  }
}

/** Plans and writes the given chains, one after the other, on this thread (see ChainWriter). */
export async function generateChains(chains: Chain[], run: DemoRun, onChain?: (result: ChainResult) => void): Promise<ChainResult[]> {
  const writer = new ChainWriter(run);
  const results: ChainResult[] = [];
  for (const chain of chains) {
    const result = writer.write(chain);
    results.push(result);
    onChain?.(result);
    // Let timers and I/O run between chains.
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return results;
}
