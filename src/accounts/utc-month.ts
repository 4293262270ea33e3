/** Calendar months and days in UTC, the quota's periods. */

// The day being served, kept so the hot path (several calls per request) formats no date.
let day = { start: 0, end: -1, text: "", month: "" };

function dayAt(date: Date): typeof day {
  const t = date.getTime();
  if (t >= day.start && t < day.end) return day;
  const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  const text = new Date(start).toISOString().slice(0, 10);
  day = { start, end: start + 86_400_000, text, month: text.slice(0, 7) };
  return day;
}

/** `2026-11` */
export function monthOf(date: Date): string {
  return dayAt(date).month;
}

/** `2026-11-22` */
export function dayOf(date: Date): string {
  return dayAt(date).text;
}

/** 00:00 UTC on the 1st of the next month. */
export function nextMonthStart(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1));
}

/** Whole seconds until 00:00 UTC on the 1st (at least 1): the Retry-After of quota_exceeded. */
export function secondsToNextMonth(date: Date): number {
  return Math.max(1, Math.ceil((nextMonthStart(date).getTime() - date.getTime()) / 1000));
}

/** Every day of the month of `date`, `YYYY-MM-DD`. */
export function daysOfMonth(date: Date): string[] {
  const y = date.getUTCFullYear();
  const m = date.getUTCMonth();
  const count = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return Array.from({ length: count }, (_, i) => dayOf(new Date(Date.UTC(y, m, i + 1))));
}
