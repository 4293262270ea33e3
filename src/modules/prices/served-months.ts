import { invalidParameter } from "../../errors/api-error.ts";

/** The most months of history the API serves whatever the setting (the schema's bound). */
export const API_HISTORY_MONTHS = 24;

/** The most months a history request may ask for: 24, or MEHIR_HISTORY_MONTHS when that is lower. */
export function historyMonthsLimit(historyMonths: number): number {
  return Math.min(API_HISTORY_MONTHS, historyMonths);
}

/**
 * A request's `months` (already checked against 1–24) against what this server keeps: over the
 * limit is `invalid_parameter`; a default (`months` absent) larger than the limit becomes the limit.
 *
 * @example servedMonths(12, false, 6) // → 6
 * @example servedMonths(12, true, 6)  // throws invalid_parameter: months must be at most 6 …
 */
export function servedMonths(months: number, given: boolean, historyMonths: number): number {
  const limit = historyMonthsLimit(historyMonths);
  if (months <= limit) return months;
  if (!given) return limit;
  throw invalidParameter("months", `months must be between 1 and ${limit}: this server keeps ${historyMonths} months of price history (MEHIR_HISTORY_MONTHS)`);
}

/** Whether the request's query names `months` (so a default can be told from a value). */
export function monthsGiven(request: Request): boolean {
  return new URL(request.url).searchParams.has("months");
}
