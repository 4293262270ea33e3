import { existsSync, readdirSync } from "node:fs";
import { parseFlags, UsageError, wantsHelp, type Command } from "./command.ts";
import { loadRegistry } from "../registry.ts";
import { generateDemo } from "../demo/generate.ts";

function positiveNumber(flag: string, text: string | undefined, fallback: number, integer: boolean): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new UsageError(`${flag} expects a positive ${integer ? "integer" : "number"}, got "${text}"`);
  }
  return value;
}

export const demoCommand: Command = {
  name: "demo",
  summary: "Write the demo dataset: every chain's files in its real formats, 24 months",
  help: `Usage: mehir demo [--out DIR] [--seed N] [--now ISO] [--chains a,b] [--scale F] [--json]

Writes the embedded demo dataset as the chains really publish it — Stores, PriceFull,
monthly Price deltas and PromoFull files per store, in each chain's XML dialect, file-name
layout, encoding and compression (BOMs, UTF-16, windows-1255, zip under a .gz name, NULL
placeholder files) — covering 24 months up to now. \`mehir serve\` does this by itself on a
first start; \`mehir import DIR --source demo\` loads a folder written here.

Options:
  --out DIR      Target folder, created if needed; must be empty (default ./mehir-demo-files)
  --seed N       Random seed (default 1). The same seed and --now give the same bytes;
                 the same seed on any day gives the same prices and promotions.
  --now ISO      The demo's "today", e.g. 2026-11-22T08:00:00+02:00 (default: now); it moves
                 only the dates
  --chains a,b   Only these chain slugs (default: every active chain)
  --scale F      Fraction of each chain's assortment, 0 < F <= 1 (default 1)
  --json         Print the report as JSON`,
  async run(args) {
    if (wantsHelp(args)) {
      console.log(this.help);
      return 0;
    }
    const { values } = parseFlags(args, {
      out: { type: "string" },
      seed: { type: "string" },
      now: { type: "string" },
      chains: { type: "string" },
      scale: { type: "string" },
      json: { type: "boolean" },
    });
    const outDir = values.out ?? "./mehir-demo-files";
    if (existsSync(outDir) && readdirSync(outDir).length > 0) throw new UsageError(`${outDir} is not empty; choose an empty or new folder`);
    const seed = positiveNumber("--seed", values.seed, 1, true);
    const scale = positiveNumber("--scale", values.scale, 1, false);
    if (scale > 1) throw new UsageError(`--scale expects a number up to 1, got "${values.scale}"`);
    const now = values.now === undefined ? new Date() : new Date(values.now);
    if (Number.isNaN(now.getTime())) throw new UsageError(`--now expects an ISO 8601 time, got "${values.now}"`);
    const registry = loadRegistry();
    const chains = values.chains?.split(",").map((s) => s.trim()).filter(Boolean);
    for (const slug of chains ?? []) if (!registry.bySlug.has(slug)) throw new UsageError(`unknown chain "${slug}"`);

    const report = await generateDemo({ registry, outDir, seed, now, chains, scale });
    if (values.json) {
      console.log(JSON.stringify(report, null, 2));
      return 0;
    }
    const mb = (report.bytes / 2 ** 20).toFixed(1);
    console.log(
      [
        `demo written to ${outDir} (seed ${report.seed}, now ${report.now})`,
        `  ${report.chains} chains, ${report.stores} stores, ${report.files} files, ${mb} MiB`,
        `  rows: ${report.rows.prices} prices, ${report.rows.promotions} promotions (${report.rows.promotionItems} items), ${report.rows.stores} store entries`,
        `  files dated ${report.from} … ${report.to}`,
        `  ${report.millis} ms`,
        `Import with: mehir import ${outDir} --source demo`,
      ].join("\n"),
    );
    return 0;
  },
};
