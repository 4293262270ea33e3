/** Calendar months and days in UTC, the quota's periods. */

/** `2026-11` */
export function monthOf(date: Date): string {
  return date.toISOString().slice(0, 7);
}

/** `2026-11-22` */
export function dayOf(date: Date): string {
  return date.toISOString().slice(0, 10);
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
