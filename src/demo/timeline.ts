import { addMinutes, addMonths, localOf, type LocalTime } from "./clock.ts";
import type { Random } from "./random.ts";

/**
 * When a chain's demo files are dated. History starts a little over `months` months before
 * `now` with a full snapshot (so the history endpoint's window opens on known prices), then a
 * monthly delta file, then today's full snapshot shortly before `now`.
 */
export interface Timeline {
  /** Step 0: the first PriceFull/PromoFull. */
  start: LocalTime;
  /** Steps 1…months: the monthly Price deltas, the last being today's PriceFull. */
  steps: LocalTime[];
  /** Stores files: just before the first and the last snapshot. */
  storesStart: LocalTime;
  storesNow: LocalTime;
  now: LocalTime;
}

export function chainTimeline(now: Date, months: number, rng: Random): Timeline {
  const nowLocal = localOf(now);
  // Each chain publishes at its own hour; the old snapshot sits two days before the window.
  const hour = rng.int(1, 6);
  const minute = rng.int(0, 59);
  const first = addMonths({ ...nowLocal, h: hour, mi: minute, s: 0 }, -months);
  const start = addMinutes(first, -2 * 24 * 60);
  const steps: LocalTime[] = [];
  for (let k = 1; k < months; k++) {
    const day = rng.int(0, 3);
    steps.push(addMinutes(addMonths(start, k), day * 24 * 60 + rng.int(0, 240)));
  }
  // Today's snapshot: 20–80 minutes before now.
  const current = addMinutes({ ...nowLocal, s: 0 }, -rng.int(20, 80));
  steps.push(current);
  return {
    start,
    steps,
    storesStart: addMinutes(start, -rng.int(5, 40)),
    storesNow: addMinutes(current, -rng.int(5, 40)),
    now: nowLocal,
  };
}
