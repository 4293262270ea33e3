import type { MaybePromise } from "../lib/maybe-promise.ts";

/** The calls of quota taken for one request, to give back if the answer turns out not to count. */
export interface Reservation {
  subject: string;
  month: string;
  day: string;
  /** Calls taken: 1 for most routes; more when the route counts by the work asked (route-calls.ts). */
  calls: number;
  /** What a shared store remembers the request that took them by (a retry is counted once; a refund names it). */
  requestId?: string;
}

export type ReserveResult = { ok: true; remaining: number; reservation: Reservation } | { ok: false; remaining: 0 };

/** Quota subjects: an account's live calls, or one publishable key's widget views. */
export const accountSubject = (accountId: number) => `account:${accountId}`;
export const widgetSubject = (keyId: number) => `widget:${keyId}`;

/**
 * Monthly usage counters per subject, exact under concurrency: N requests against M calls left
 * succeed exactly M times. In process: SqliteQuotaLedger (counts in memory, written to
 * `usage_daily` in batches). A shared store may answer later: every method may return a promise.
 */
export interface QuotaLedger {
  /** Calls counted for the subject in the month of `now`. */
  usedThisMonth(subject: string, now: Date): MaybePromise<number>;
  /** Takes `calls` (default 1) if that many are left of `limit` this month — all or none. */
  tryReserve(subject: string, limit: number, now: Date, calls?: number, requestId?: string): MaybePromise<ReserveResult>;
  /** Gives a reservation's calls back (the answer was a 304, a 429 or a server error). */
  refund(reservation: Reservation): MaybePromise<void>;
  /** This month's counts by day, for the portal's chart. */
  dailyUsage(subject: string, now: Date): MaybePromise<{ day: string; count: number }[]>;
  /** Writes pending counts to the system of record (at shutdown; periodically by itself). */
  flush(): MaybePromise<unknown>;
}
