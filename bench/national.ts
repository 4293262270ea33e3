/**
 * Builds (once, cached under .bench-data/) a synthetic national-size prices database:
 * ≈30 chains, ≈2,000 stores, ≈60k products, ≈7 M current prices, history and promotions.
 *
 *   bun bench/national.ts [--scale 1] [--force]
 *
 * Other benches call `ensureNational(scale)`.
 */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { PRICES_FILE } from "../src/db/open.ts";
import { buildNational, isCurrentBuild, nationalPlan } from "./lib/national-build.ts";
import { flag, numberOption } from "./lib/args.ts";

export const BENCH_DATA = resolve(import.meta.dir, "..", ".bench-data");

/** The cached data dir for a scale, built when missing or out of date. */
export function ensureNational(scale: number, options: { force?: boolean; say?: (msg: string) => void } = {}): string {
  const say = options.say ?? ((msg: string) => console.error(`[national] ${msg}`));
  const dataDir = join(BENCH_DATA, `national-${scale}`);
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, PRICES_FILE);
  if (!options.force && isCurrentBuild(file, scale)) return dataDir;
  const plan = nationalPlan(scale);
  say(`building ${file}: ${plan.chains} chains, ${plan.stores} stores, ${plan.products} products`);
  const figures = buildNational(file, scale, new Date(), say);
  say(
    `built in ${figures.seconds.toFixed(1)} s: ${figures.priceRows.toLocaleString("en")} prices, ${figures.historyRows.toLocaleString("en")} history rows, ` +
      `${figures.promotions} promotions (${figures.promotionStoreRows.toLocaleString("en")} store links), ${figures.chainProductRows.toLocaleString("en")} chain_products rows`,
  );
  return dataDir;
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const dir = ensureNational(numberOption(args, "scale", 1), { force: flag(args, "force") });
  console.log(dir);
}
