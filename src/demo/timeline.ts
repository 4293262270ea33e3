import { addMinutes, addMonths, fmt, localOf, type LocalTime } from "./clock.ts";
import type { Random } from "./random.ts";

/**
 * The day the demo's numbers are made for. The demo (and test mode's sandbox, which is the
 * demo) is planned as of this date at the current wall-clock time, then every date is moved
 * forward by whole days to today: the same seed gives the same products, stores, prices and
 * promotions whenever and wherever it is made, and only the dates follow the day it was made
 * (promotions running today, today's snapshot shortly before now).
 */
export const DEMO_ANCHOR = { y: 2026, mo: 11, d: 22 } as const;

const DAY_MINUTES = 24 * 60;

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
  /** Whole days the timeline planned on DEMO_ANCHOR was moved by to end today. */
  shiftDays: number;
}

/** Days since 1970-01-01 of a local date. */
function dayNumber(t: LocalTime): number {
  return Date.UTC(t.y, t.mo - 1, t.d) / 86_400_000;
}

export function chainTimeline(now: Date, months: number, rng: Random): Timeline {
  const today = localOf(now);
  // Planned on the anchor day, at today's wall-clock time; its random draws never depend on the date.
  const nowLocal: LocalTime = { ...today, ...DEMO_ANCHOR };
  // Each chain publishes at its own hour; the old snapshot sits two days before the window.
  const hour = rng.int(1, 6);
  const minute = rng.int(0, 59);
  const first = addMonths({ ...nowLocal, h: hour, mi: minute, s: 0 }, -months);
  const start = addMinutes(first, -2 * DAY_MINUTES);
  const steps: LocalTime[] = [];
  for (let k = 1; k < months; k++) {
    const day = rng.int(0, 3);
    steps.push(addMinutes(addMonths(start, k), day * DAY_MINUTES + rng.int(0, 240)));
  }
  // Today's snapshot: 20–80 minutes before now.
  const current = addMinutes({ ...nowLocal, s: 0 }, -rng.int(20, 80));
  steps.push(current);
  const storesStart = addMinutes(start, -rng.int(5, 40));
  const storesNow = addMinutes(current, -rng.int(5, 40));
  const shiftDays = dayNumber(today) - dayNumber(nowLocal);
  const move = (t: LocalTime) => addMinutes(t, shiftDays * DAY_MINUTES);
  return { start: move(start), steps: steps.map(move), storesStart: move(storesStart), storesNow: move(storesNow), now: move(nowLocal), shiftDays };
}

/**
 * The date a time of the timeline stands for on the anchored calendar: where the demo reads
 * calendar facts that change its numbers (the VAT rate), so they move with its dates.
 * @example calendarDate(timeline, timeline.now) // "2026-11-22" whatever day the demo was made
 */
export function calendarDate(timeline: Timeline, t: LocalTime): string {
  return fmt.date(addMinutes(t, -timeline.shiftDays * DAY_MINUTES));
}
