/**
 * Runs every benchmark in bench/ (`npm run bench`), each in its own process, one after another
 * (they measure CPU on a small machine: never in parallel).
 *
 *   bun bench/run.ts            full runs; each bench records its section of bench/RESULTS.md
 *   bun bench/run.ts --quick    small, quick versions (≈2 minutes in all) that print their
 *                               figures and record nothing; CI runs this
 *   bun bench/run.ts http load  only the named benches
 *
 * Benches are the .ts files of bench/ other than this runner, the load generator and the data
 * builder. For --quick, a bench either takes `--quick` itself or has its small arguments below;
 * others are skipped (and said so).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const HERE = import.meta.dir;
const NOT_BENCHES = new Set(["run.ts", "loadgen.ts", "national.ts"]);

/** Small runs for benches without a --quick flag of their own. */
const QUICK_ARGS: Record<string, string[]> = {
  "import.ts": ["--stores", "10", "--no-write"],
  "parse.ts": ["--files", "4"],
  "demo.ts": ["--runs", "1", "--no-write"],
};

/** Order: data-heavy benches share the cached national database; the rest follow alphabetically. */
const FIRST = ["http.ts", "basket.ts", "load.ts", "operations.ts"];

function benches(only: string[]): string[] {
  const all = readdirSync(HERE)
    .filter((f) => f.endsWith(".ts") && !NOT_BENCHES.has(f))
    .sort((a, b) => (FIRST.indexOf(a) + 1 || 99) - (FIRST.indexOf(b) + 1 || 99) || a.localeCompare(b));
  return only.length ? all.filter((f) => only.includes(f.replace(/\.ts$/, ""))) : all;
}

function quickArgs(file: string): string[] | null {
  if (QUICK_ARGS[file]) return QUICK_ARGS[file]!;
  return /["']quick["']/.test(readFileSync(join(HERE, file), "utf8")) ? ["--quick"] : null;
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const quick = args.includes("--quick");
  const only = args.filter((a) => !a.startsWith("--"));
  const started = performance.now();
  const results: { file: string; code: number | null; seconds: number; note?: string }[] = [];
  for (const file of benches(only)) {
    const extra = quick ? quickArgs(file) : [];
    if (extra === null) {
      results.push({ file, code: null, seconds: 0, note: "skipped: no quick mode" });
      continue;
    }
    console.error(`\n== bench/${file} ${extra.join(" ")}`);
    const t0 = performance.now();
    const proc = Bun.spawn([process.execPath, join(HERE, file), ...extra], { stdout: "inherit", stderr: "inherit" });
    const code = await proc.exited;
    results.push({ file, code, seconds: (performance.now() - t0) / 1000 });
  }
  console.error(`\n== benches (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  for (const r of results) {
    console.error(`${r.file.padEnd(12)} ${r.code === null ? r.note : r.code === 0 ? `ok  ${r.seconds.toFixed(0)} s` : `FAILED (exit ${r.code}) after ${r.seconds.toFixed(0)} s`}`);
  }
  return results.some((r) => r.code !== null && r.code !== 0) ? 1 : 0;
}

process.exit(await main());
