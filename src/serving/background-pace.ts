import type { Pacing } from "../deps.ts";

/** From this many API requests per second on, background work yields to them (see backgroundPace). */
export const BUSY_REQUESTS_PER_SECOND = 200;

/**
 * The pace of background work on the serving thread (a search index rebuild): between slices it
 * lets the event loop run; while the server is busy it also counts the slice against the cold
 * budget and waits while that is spent — so a rebuild after an import takes at most a quarter of
 * a busy thread (together with recomputed answers) and longer, while the old index serves.
 * On a quiet server it runs flat out (start-up: the index is what /readyz waits for).
 *
 * @example new ProductSearch({ pace: backgroundPace(pacing) })
 */
export function backgroundPace({ coldBudget: budget, loadMeter: meter }: Pick<Pacing, "coldBudget" | "loadMeter">): (workedMs: number) => Promise<void> {
  return async (workedMs) => {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (meter.perSecond() < BUSY_REQUESTS_PER_SECOND) return;
    budget.spend(workedMs);
    while (!budget.available() && meter.perSecond() >= BUSY_REQUESTS_PER_SECOND) await Bun.sleep(20);
  };
}
