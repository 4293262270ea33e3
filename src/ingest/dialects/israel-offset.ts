import { israelOffsetMinutes } from "../../lib/time.ts";

interface YearRule {
  /** Offsets in minutes east of UTC: winter (standard) and summer (DST, = winter when none). */
  winter: number;
  summer: number;
  /** Local wall-clock times (ms, read as if UTC) at which summer time starts and ends. */
  summerFrom: number;
  summerUntil: number;
}

const MINUTE = 60_000;
const rules = new Map<number, YearRule>();

/** First instant in (lo, hi] whose offset differs from the offset at lo (1-minute resolution). */
function switchBetween(lo: number, hi: number): number {
  const before = israelOffsetMinutes(new Date(lo));
  while (hi - lo > MINUTE) {
    const mid = lo + Math.floor((hi - lo) / 2 / MINUTE) * MINUTE;
    if (israelOffsetMinutes(new Date(mid)) === before) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** The year's DST switches, found once per year with the runtime's time-zone data (Intl). */
function ruleOf(year: number): YearRule {
  let rule = rules.get(year);
  if (rule) return rule;
  const jan = Date.UTC(year, 0, 1);
  const jul = Date.UTC(year, 6, 1);
  const end = Date.UTC(year + 1, 0, 1);
  const winter = israelOffsetMinutes(new Date(jan));
  const summer = israelOffsetMinutes(new Date(jul));
  if (summer === winter) {
    rule = { winter, summer, summerFrom: Infinity, summerUntil: -Infinity };
  } else {
    const start = switchBetween(jan, jul);
    const stop = switchBetween(jul, end);
    rule = { winter, summer, summerFrom: start + winter * MINUTE, summerUntil: stop + summer * MINUTE };
  }
  rules.set(year, rule);
  return rule;
}

/**
 * Israel's UTC offset in minutes for a naive local wall time (120 winter, 180 summer), and how
 * many minutes the wall time must move forward because the spring switch skipped it (else 0).
 * A wall time repeated in autumn is read as its second (winter) occurrence — as `time.ts` does.
 *
 * @example israelOffsetForLocal(2026, 8, 24, 3, 0, 0) // { offset: 180, skip: 0 }
 */
export function israelOffsetForLocal(y: number, mo: number, d: number, h: number, mi: number, s: number): { offset: number; skip: number } {
  const rule = ruleOf(y);
  const local = Date.UTC(y, mo - 1, d, h, mi, s);
  const shift = (rule.summer - rule.winter) * MINUTE;
  if (local < rule.summerFrom) return { offset: rule.winter, skip: 0 };
  if (local < rule.summerFrom + shift) return { offset: rule.summer, skip: rule.summer - rule.winter };
  if (local < rule.summerUntil - shift) return { offset: rule.summer, skip: 0 };
  return { offset: rule.winter, skip: 0 };
}
