import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runImportMemory } from "../../bench/lib/import-memory-run.ts";

// A server process importing eight times: sized for a loaded 2-core machine.
setDefaultTimeout(240_000);

const root = mkdtempSync(join(tmpdir(), "mehir-import-memory-test-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * The small version of bench/import-memory.ts: a real server imports a different day 8 times
 * while requests flow; from the third import on, its open file descriptors, worker threads (import
 * and export workers ended; the runtime's JIT, GC and I/O helpers come and go and are not counted) and kept timers (intervals and one-shots over a second) never go above what they were
 * — each the fewest over a second, so what comes and goes is not counted; a leak is in every read
 * (memory is the bench's: RESULTS.md).
 */
test("a server importing a different day 8 times adds no fds, worker threads or timers", async () => {
  const run = await runImportMemory(root, { stores: 4, itemsPerStore: 150, products: 800, chains: 2, promos: true }, 8);
  expect(run.samples.map((s) => s.import)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  expect(run.samples.map((s) => s.dataVersion)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  expect(run.requests).toBeGreaterThan(0);
  expect(run.failures).toBe(0);
  const third = run.samples[3]!;
  // A leak only adds: no count after a later import is above the third's (the run is shorter than
  // the 295 s one-shot timer set at start, so the timers are in fact equal).
  const grown = run.samples.slice(3).filter((s) => s.fds > third.fds || s.workerThreads > third.workerThreads || s.timers > third.timers);
  expect(grown).toEqual([]);
  expect(run.samples.at(-1)!.timers).toBe(third.timers);
});
