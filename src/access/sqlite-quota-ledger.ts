import type { Database } from "bun:sqlite";
import { log } from "../lib/log.ts";
import { Backoff, realTimer, type Timer } from "../lib/backoff.ts";
import { dayOf, daysOfMonth, monthOf } from "../accounts/utc-month.ts";
import type { QuotaLedger, Reservation, ReserveResult } from "./quota-ledger.ts";

/**
 * The in-process QuotaLedger: monthly usage counters. Reservations happen synchronously in memory, so N concurrent
 * requests against M remaining succeed exactly M times. Counts reach `usage_daily` in a
 * batch at most `flushMs` later (one transaction, not a write per request) and on `flush()`;
 * a subject's month is loaded from the table on first use, so counts survive restarts.
 * A crash (SIGKILL) loses at most the last unflushed batch. A flush that fails (disk full, busy)
 * is retried with a capped exponential back-off (FLUSH_RETRY_FIRST_MS doubling to
 * FLUSH_RETRY_MAX_MS), one warning per attempt naming the wait, not a warning every interval.
 */
export const FLUSH_RETRY_FIRST_MS = 2_000;
export const FLUSH_RETRY_MAX_MS = 60_000;

export class SqliteQuotaLedger implements QuotaLedger {
  private readonly used = new Map<string, { month: string; count: number }>();
  /** subject → day → calls not yet written. */
  private readonly pending = new Map<string, Map<string, number>>();
  private timer: unknown = null;
  private readonly retry = new Backoff(FLUSH_RETRY_FIRST_MS, FLUSH_RETRY_MAX_MS);
  private readonly timers: Timer;
  private readonly sumMonth;
  private readonly upsert;
  private readonly daily;

  constructor(
    private readonly db: Database,
    private readonly options: { flushMs?: number; warn?: (msg: string, fields: Record<string, unknown>) => void; timer?: Timer } = {},
  ) {
    this.timers = options.timer ?? realTimer;
    this.sumMonth = db.prepare("SELECT coalesce(sum(count), 0) AS total FROM usage_daily WHERE subject = ? AND day >= ? AND day <= ?");
    this.upsert = db.prepare(
      `INSERT INTO usage_daily (subject, day, count) VALUES (?1, ?2, max(?3, 0))
       ON CONFLICT (subject, day) DO UPDATE SET count = max(0, count + ?3)`,
    );
    this.daily = db.prepare("SELECT day, count FROM usage_daily WHERE subject = ? AND day >= ? AND day <= ?");
  }

  /** Calls counted for the subject in the month of `now`. */
  usedThisMonth(subject: string, now: Date): number {
    return this.entry(subject, now).count;
  }

  /**
   * Takes `calls` (default 1) if that many are left of `limit` this month — all or none, in one
   * synchronous step, so concurrent requests never take more than the limit between them.
   */
  tryReserve(subject: string, limit: number, now: Date, calls = 1, requestId?: string): ReserveResult {
    const entry = this.entry(subject, now);
    if (entry.count + calls > limit) return { ok: false, remaining: 0 };
    entry.count += calls;
    const day = dayOf(now);
    this.addPending(subject, day, calls);
    return { ok: true, remaining: limit - entry.count, reservation: { subject, month: entry.month, day, calls, requestId } };
  }

  /** Gives a reservation's calls back (the answer was a 304, a 429 or a server error). */
  refund(reservation: Reservation): void {
    const entry = this.used.get(reservation.subject);
    if (entry && entry.month === reservation.month) entry.count = Math.max(0, entry.count - reservation.calls);
    this.addPending(reservation.subject, reservation.day, -reservation.calls);
  }

  /** This month's counts by day (written and pending), for the portal's chart. */
  dailyUsage(subject: string, now: Date): { day: string; count: number }[] {
    const days = daysOfMonth(now);
    const counts = new Map<string, number>();
    for (const row of this.daily.all(subject, days[0]!, days[days.length - 1]!) as { day: string; count: number }[]) counts.set(row.day, row.count);
    for (const [day, delta] of this.pending.get(subject) ?? []) counts.set(day, Math.max(0, (counts.get(day) ?? 0) + delta));
    return days.map((day) => ({ day, count: counts.get(day) ?? 0 }));
  }

  /** Writes pending counts in one transaction; returns the number of rows touched. */
  flush(): number {
    if (this.timer) {
      this.timers.clear(this.timer);
      this.timer = null;
    }
    const rows: [string, string, number][] = [];
    for (const [subject, days] of this.pending) for (const [day, delta] of days) if (delta !== 0) rows.push([subject, day, delta]);
    if (rows.length > 0) {
      this.db.transaction(() => {
        for (const row of rows) this.upsert.run(...row);
      })();
    }
    this.pending.clear();
    return rows.length;
  }

  get hasPending(): boolean {
    return this.pending.size > 0;
  }

  private entry(subject: string, now: Date): { month: string; count: number } {
    const month = monthOf(now);
    let entry = this.used.get(subject);
    if (!entry || entry.month !== month) {
      const days = daysOfMonth(now);
      let count = (this.sumMonth.get(subject, days[0]!, days[days.length - 1]!) as { total: number }).total;
      for (const [day, delta] of this.pending.get(subject) ?? []) if (day.startsWith(month)) count += delta;
      entry = { month, count: Math.max(0, count) };
      this.used.set(subject, entry);
    }
    return entry;
  }

  private addPending(subject: string, day: string, delta: number): void {
    let days = this.pending.get(subject);
    if (!days) this.pending.set(subject, (days = new Map()));
    days.set(day, (days.get(day) ?? 0) + delta);
    this.schedule();
  }

  /** Sets the flush timer unless one is set: `ms` after a failure, else the flush interval. */
  private schedule(ms = this.options.flushMs ?? 1000): void {
    if (this.timer) return;
    this.timer = this.timers.set(() => {
      this.timer = null;
      try {
        const rows = this.flush();
        this.retry.succeed();
        // What a test of a process waits on before it kills the server (test/cli/keys-live-server.test.ts).
        log.debug("usage flushed", { rows });
      } catch (error) {
        // A closed database will not open again: its owner stopped without stopping the app, and
        // retrying would only log forever. Anything else (busy, disk full) is retried, later each
        // time, the counts kept in memory until a flush (or shutdown) succeeds.
        const warn = this.options.warn ?? log.warn;
        if (error instanceof RangeError && /closed database/i.test(error.message)) {
          warn("usage flush abandoned: the accounts database is closed", { error: String(error) });
          return;
        }
        const wait = this.retry.fail();
        warn(`usage flush failed; counts kept in memory, next try in ${Math.round(wait / 1000)} s`, { error: String(error), failures: this.retry.failed, retry_in_ms: wait });
        this.schedule(wait);
      }
    }, ms);
  }
}
