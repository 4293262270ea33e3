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
 * and export workers ended; the runtime's JIT, GC and I/O helpers come and go and are not counted) and kept timers (intervals and one-shots over a second) are after the last import no more than they were
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
  // A leak only adds, and stays: after the last import no count is above the third's (a worker still
  // finishing under load may be caught at one sample in between; the run is shorter than the 295 s
  // one-shot timer set at start, so the timers are equal).
  const last = run.samples.at(-1)!;
  expect({ fds: last.fds <= third.fds, workerThreads: last.workerThreads <= third.workerThreads }).toEqual({ fds: true, workerThreads: true });
  expect(last.timers).toBe(third.timers);
});
