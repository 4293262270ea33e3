import type { Database } from "bun:sqlite";
import { daysOfMonth, monthOf } from "../../accounts/utc-month.ts";
import { COUNTER_TTL_S, redisKeys } from "./keys.ts";
import type { SharedStore } from "./shared-store.ts";

type Log = (msg: string, fields?: Record<string, unknown>) => void;

/**
 * The primary keeps accounts.sqlite the system of record of usage while Redis counts:
 * - **load**: when Redis has not got this month's usage (first start, or after it lost its data —
 *   the `seeded` marker is gone), the month's counts of `usage_daily` are written into Redis, the
 *   marker last; until then metered calls fail closed (the meter's "not loaded");
 * - **write-back**: every `intervalMs` the day counters of Redis are written to `usage_daily` as
 *   absolute values (idempotent: a repeated or late write never double-counts).
 * Redis losing its data therefore costs at most the counts of the last interval.
 */
export class UsageSync {
  private timer: ReturnType<typeof setInterval> | null = null;
  private running: Promise<void> | null = null;
  private readonly monthRows;
  private readonly write;

  constructor(
    private readonly db: Database,
    private readonly store: SharedStore,
    private readonly options: { intervalMs?: number; now?: () => Date; error?: Log } = {},
  ) {
    this.monthRows = db.prepare("SELECT subject, day, count FROM usage_daily WHERE day >= ? AND day <= ?");
    this.write = db.prepare("INSERT INTO usage_daily (subject, day, count) VALUES (?, ?, ?) ON CONFLICT (subject, day) DO UPDATE SET count = excluded.count");
  }

  start(): this {
    this.timer = setInterval(() => void this.sync(), this.options.intervalMs ?? 2000);
    this.timer.unref?.();
    void this.sync();
    return this;
  }

  /** Stops the timer after a last write-back. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.sync();
  }

  /** Loads the month if Redis lacks it, then writes the counters back (the timer's pass; tests call it). */
  sync(): Promise<void> {
    this.running ??= (async () => {
      await this.loadIfMissing();
      await this.writeBack();
    })()
      .catch((error) => (this.options.error ?? (() => {}))("usage: sync with Redis failed", { error: String((error as Error).message) }))
      .finally(() => (this.running = null));
    return this.running;
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }

  async loadIfMissing(): Promise<boolean> {
    const now = this.now();
    const month = monthOf(now);
    if (Number(await this.store.send("EXISTS", [redisKeys.seeded(month)])) === 1) return false;
    const days = daysOfMonth(now);
    const rows = this.monthRows.all(days[0]!, days[days.length - 1]!) as { subject: string; day: string; count: number }[];
    const totals = new Map<string, number>();
    for (const row of rows) {
      totals.set(row.subject, (totals.get(row.subject) ?? 0) + row.count);
      await this.store.send("SET", [redisKeys.day(row.subject, row.day), row.count, "EX", COUNTER_TTL_S]);
    }
    for (const [subject, total] of totals) await this.store.send("SET", [redisKeys.month(subject, month), total, "EX", COUNTER_TTL_S]);
    await this.store.send("SET", [redisKeys.seeded(month), "1", "EX", COUNTER_TTL_S]);
    return true;
  }

  /** Writes the day counters (this month's and, at a month's turn, the last one's) to usage_daily as they are in Redis. */
  async writeBack(): Promise<number> {
    const keys: string[] = [];
    let cursor = "0";
    do {
      const [next, found] = (await this.store.send("SCAN", [cursor, "MATCH", "mehir:u:*", "COUNT", 1000])) as [string, string[]];
      keys.push(...found);
      cursor = next;
    } while (cursor !== "0");
    if (keys.length === 0) return 0;
    const values = (await this.store.send("MGET", keys)) as (string | null)[];
    const rows: [string, string, number][] = [];
    keys.forEach((key, i) => {
      const match = /^mehir:u:(.+):(\d{4}-\d{2}-\d{2})$/.exec(key);
      if (match && values[i] !== null) rows.push([match[1]!, match[2]!, Number(values[i])]);
    });
    this.db.transaction(() => {
      for (const row of rows) this.write.run(...row);
    })();
    return rows.length;
  }
}
