/**
 * No leaks over many imports (issue 45, part 5): a real server imports a different day N times in a
 * row (default 30) through its import worker while requests flow; after each import (and a full GC)
 * its RSS, heap, open file descriptors, threads (all, and workers' apart from the runtime's own
 * helpers) and kept timers are sampled (bench/lib/import-memory-child.ts says how).
 * Targets: RSS after the last import within 15 % of the third's; fds, worker threads and timers
 * after the last import at most the third's (a leak only adds, and stays; a one-shot timer set at
 * start — 295 s — fires once in the run; a worker finishing under load may be caught at one sample).
 *
 *   bun bench/import-memory.ts [--imports 30] [--stores 60] [--items 1500] [--products 12000] [--no-write]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { flag, numberOption } from "./lib/args.ts";
import { machineLine, table, writeSection } from "./lib/results.ts";
import { runImportMemory, type ImportSample } from "./lib/import-memory-run.ts";

/** Whether the samples meet the targets, and why not. */
export function judge(samples: ImportSample[]): { ok: boolean; problems: string[] } {
  const problems: string[] = [];
  const third = samples.find((s) => s.import === 3);
  const last = samples.at(-1);
  if (!third || !last) return { ok: false, problems: ["fewer than 3 imports sampled"] };
  if (last.rssMiB > third.rssMiB * 1.15) problems.push(`RSS ${last.rssMiB} MiB after import ${last.import} > 1.15 × ${third.rssMiB} MiB (import 3)`);
  // A leak only adds, and stays: the counts after the last import are at most the third's. (A worker
  // still finishing its work at a sample — the export or parse threads under load — is not one.)
  for (const field of ["fds", "workerThreads", "timers"] as const) {
    if (last[field] > third[field]) problems.push(`${field} ${last[field]} after import ${last.import}, ${third[field]} after import 3`);
  }
  return { ok: problems.length === 0, problems };
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const imports = numberOption(args, "imports", 30);
  const plan = { stores: numberOption(args, "stores", 60), itemsPerStore: numberOption(args, "items", 1500), products: numberOption(args, "products", 12_000), chains: 6, promos: true };
  const root = mkdtempSync(join(tmpdir(), "mehir-import-memory-"));
  try {
    const started = Date.now();
    const run = await runImportMemory(root, plan, imports, (line) => console.log(line));
    const verdict = judge(run.samples);
    const body = [
      machineLine(`${imports} imports of ${plan.stores} stores × ${plan.itemsPerStore} items (${plan.chains} chains, promotions), consecutive days; ${run.requests} requests meanwhile (${run.failures} failed); ${Math.round((Date.now() - started) / 1000)} s`),
      "",
      table(
        ["after import", "import ms", "RSS MiB", "JS heap MiB", "open fds", "threads (all)", "worker threads", "kept timers"],
        run.samples.map((s) => [s.import, s.ms, s.rssMiB, s.heapMiB, s.fds, s.threads, s.workerThreads, s.timers]),
      ),
      "",
      `Target (RSS after the last import within 15 % of the third's; open fds, worker threads and kept timers after the last import at most the third's): **${verdict.ok ? "met" : "not met"}**${verdict.ok ? "" : ` — ${verdict.problems.slice(0, 5).join("; ")}`}.`,
    ].join("\n");
    console.log(body);
    if (!flag(args, "no-write")) writeSection("Import memory: a server importing a different day many times (bench/import-memory.ts)", body);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
