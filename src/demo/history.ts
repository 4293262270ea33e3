import type { Item } from "./assortment.ts";
import { addMinutes, compareLocal, type LocalTime } from "./clock.ts";
import { movePrice, type PriceEnding } from "./pricing.ts";
import type { Random } from "./random.ts";
import { calendarDate, type Timeline } from "./timeline.ts";

/**
 * A chain's prices over the demo period, at chain level: what it sold at the start, and per
 * monthly step which prices changed (5–8% of items, mostly up; produce swings with the
 * season), which items were launched, and which were delisted by today. On 1 January 2025
 * (VAT 17% → 18%) a third of the items go up by about 1% — on the anchored calendar
 * (timeline.ts), so the rise moves with the demo's dates and its numbers stay the same.
 */
export interface ChainHistory {
  /** Items on sale at step 0. */
  startSet: Set<number>;
  /** Price per item index at step 0 (launched items: their launch price). */
  startPrices: Int32Array;
  /** Per step 1…n: changed prices and newly launched items (with their price). */
  steps: Step[];
  /** Not in today's snapshot. */
  delisted: Set<number>;
  /** Time of the last change per item, step by step: `updatedAt[k][i]`. */
  updatedAt: LocalTime[][];
  /** Price per item after each step: `pricesAt[k]` (k = 0 is the start). */
  pricesAt: Int32Array[];
}

export interface Step {
  time: LocalTime;
  changes: Map<number, number>;
  launches: Map<number, number>;
}

const VAT_DAY = "2025-01-01";
/**
 * A chain changes its prices in update runs, and every item a run changed carries the run's time
 * (PriceUpdateDate): the real files hold a few dozen to a few hundred distinct times over
 * thousands of items (73 for 1,568 items, 734 for 2,243 in two published PriceFull files). Items
 * last changed before the demo's start come from EARLIER_RUNS runs; each monthly step's changes
 * from 2 to RUNS_PER_STEP runs between its file and the one before.
 */
const EARLIER_RUNS = 120;
const RUNS_PER_STEP = 6;

export function chainHistory(items: Item[], timeline: Timeline, ending: PriceEnding, rng: Random): ChainHistory {
  const n = items.length;
  const steps = timeline.steps;
  const launchStep = new Int32Array(n); // 0 = on sale from the start
  const delisted = new Set<number>();
  for (let i = 0; i < n; i++) {
    if (items[i]!.itemType === 1 && steps.length > 3 && rng.chance(0.03)) launchStep[i] = rng.int(2, steps.length - 1);
    else if (items[i]!.itemType === 1 && rng.chance(0.015)) delisted.add(i);
  }

  const startSet = new Set<number>();
  const price = new Int32Array(n);
  const startPrices = new Int32Array(n);
  // Before the start, items were last changed in the chain's price update runs of the year before.
  const earlierRuns = Array.from({ length: EARLIER_RUNS }, () => ({ ...addMinutes(timeline.start, -rng.int(10, 400) * 24 * 60 - rng.int(0, 600)), s: rng.int(0, 59) }));
  let updated: LocalTime[] = [];
  for (let i = 0; i < n; i++) {
    price[i] = items[i]!.startPrice;
    startPrices[i] = price[i]!;
    if (launchStep[i] === 0) startSet.add(i);
    updated.push(earlierRuns[rng.int(0, EARLIER_RUNS - 1)]!);
  }
  const pricesAt = [price.slice()];
  const updatedAt = [updated];
  const out: Step[] = [];
  let previous = timeline.start;
  const onSale = new Set(startSet);

  for (let k = 1; k <= steps.length; k++) {
    const time = steps[k - 1]!;
    const stepRng = rng.fork(`step:${k}`);
    const changes = new Map<number, number>();
    const launches = new Map<number, number>();
    const share = stepRng.float(0.05, 0.08);
    const vatStep = calendarDate(timeline, previous) < VAT_DAY && calendarDate(timeline, time) >= VAT_DAY;
    const runs = Array.from({ length: stepRng.int(2, RUNS_PER_STEP) }, () => changeTime(previous, time, stepRng));
    const when = () => runs[stepRng.int(0, runs.length - 1)]!;
    updated = updated.slice();

    for (const i of onSale) {
      if (k === steps.length && delisted.has(i)) continue;
      const item = items[i]!;
      const old = price[i]!;
      let next = old;
      if (item.itemType === 0) {
        if (stepRng.chance(0.35)) {
          // Produce: seasonal swings around the starting price.
          const drift = old / item.startPrice;
          const factor = stepRng.float(0.8, 1.25) * (drift > 1.3 ? 0.85 : drift < 0.75 ? 1.15 : 1);
          next = movePrice(old, factor, ending);
        }
      } else if (vatStep && stepRng.chance(0.35)) {
        next = Math.max(old + 10, Math.round((old * 1.0085) / 10) * 10);
      } else if (stepRng.chance(share)) {
        const up = stepRng.chance(0.78);
        next = movePrice(old, up ? stepRng.float(1.02, 1.12) : stepRng.float(0.88, 0.97), ending);
      }
      if (next !== old) {
        price[i] = next;
        changes.set(i, next);
        updated[i] = when();
      }
    }
    for (let i = 0; i < n; i++) {
      if (launchStep[i] !== k) continue;
      // Launched at a price grown with time since the start (~3% a year).
      const launched = movePrice(items[i]!.startPrice, 1 + 0.0025 * k, ending);
      price[i] = launched;
      startPrices[i] = launched;
      launches.set(i, launched);
      onSale.add(i);
      updated[i] = when();
    }
    out.push({ time, changes, launches });
    pricesAt.push(price.slice());
    updatedAt.push(updated);
    previous = time;
  }
  return { startSet, startPrices, steps: out, delisted, updatedAt, pricesAt };
}

/** A moment between two files: a change is published in the next file after it happens. */
function changeTime(after: LocalTime, before: LocalTime, rng: Random): LocalTime {
  const span = Math.max(60, Math.min(4 * 24 * 60, Math.floor(minutesBetween(after, before) - 60)));
  const t = { ...addMinutes(before, -rng.int(30, span)), s: rng.int(0, 59) };
  return compareLocal(t, after) > 0 ? t : addMinutes(after, 30);
}

function minutesBetween(a: LocalTime, b: LocalTime): number {
  return compareLocal(b, a) / 60_000;
}
