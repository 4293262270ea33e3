/**
 * Audit F8: on a full disk the usage flush failed — and warned — every second. It now backs off
 * (2 s doubling to a minute), warns once per try, and catches up on the first flush that succeeds.
 * The ledger's timer is a recording one: no waiting on a clock.
 */
import { expect, test } from "bun:test";
import { Backoff, type Timer } from "../../src/lib/backoff.ts";
import { openMemory } from "../../src/db/open.ts";
import { FLUSH_RETRY_FIRST_MS, FLUSH_RETRY_MAX_MS, SqliteQuotaLedger } from "../../src/access/sqlite-quota-ledger.ts";

test("Backoff: doubles from the first delay, capped, and starts over after a success", () => {
  const backoff = new Backoff(2_000, 300_000);
  const delays = Array.from({ length: 10 }, () => backoff.fail());
  expect(delays).toEqual([2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000, 300_000, 300_000]);
  expect(backoff.failed).toBe(10);
  backoff.succeed();
  expect(backoff.fail()).toBe(2_000);
  // However long it fails, never past the cap (no overflow to Infinity or NaN).
  for (let i = 0; i < 2_000; i++) backoff.fail();
  expect(backoff.fail()).toBe(300_000);
});

test("a failing usage flush is retried with growing delays, one warning per try, and catches up when the disk has room", () => {
  const db = openMemory().accounts;
  const scheduled: { run: () => void; ms: number }[] = [];
  const timer: Timer = { set: (run, ms) => scheduled.push({ run, ms }), clear: () => {} };
  const warnings: { msg: string; fields: Record<string, unknown> }[] = [];
  const ledger = new SqliteQuotaLedger(db, { flushMs: 1000, timer, warn: (msg, fields) => warnings.push({ msg, fields }) });
  const now = new Date("2026-11-22T10:00:00Z");

  // A full disk, as SQLite reports it: every write to usage_daily fails.
  db.run("CREATE TEMP TRIGGER full_disk BEFORE INSERT ON usage_daily BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END");
  ledger.tryReserve("account:1", 100, now);
  expect(scheduled.map((s) => s.ms)).toEqual([1000]);
  for (let i = 0; i < 8; i++) {
    scheduled.at(-1)!.run();
    // More calls meanwhile do not bring the next try forward.
    ledger.tryReserve("account:1", 100, now);
  }
  expect(scheduled.map((s) => s.ms)).toEqual([1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000]);
  expect(FLUSH_RETRY_FIRST_MS).toBe(2000);
  expect(FLUSH_RETRY_MAX_MS).toBe(60000);
  expect(warnings).toHaveLength(8);
  expect(warnings[0]).toEqual({ msg: "usage flush failed; counts kept in memory, next try in 2 s", fields: { error: expect.stringContaining("disk is full"), failures: 1, retry_in_ms: 2000 } });
  expect(warnings[7]!.msg).toBe("usage flush failed; counts kept in memory, next try in 60 s");
  expect(ledger.usedThisMonth("account:1", now)).toBe(9);

  // Space again: the next try writes every count kept, and the next failure starts from 2 s again.
  db.run("DROP TRIGGER full_disk");
  scheduled.at(-1)!.run();
  expect(db.query("SELECT sum(count) AS n FROM usage_daily").get()).toEqual({ n: 9 });
  expect(warnings).toHaveLength(8);
  db.run("CREATE TEMP TRIGGER full_disk BEFORE INSERT ON usage_daily BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END");
  ledger.tryReserve("account:1", 100, now);
  scheduled.at(-1)!.run();
  expect(scheduled.at(-1)!.ms).toBe(2000);
});
