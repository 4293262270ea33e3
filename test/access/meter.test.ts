import { describe, expect, test } from "bun:test";
import { openMemory } from "../../src/db/open.ts";
import { LocalMeter, type MeterRequest, type MeterVerdict } from "../../src/access/meter.ts";
import { TokenBuckets } from "../../src/access/token-bucket.ts";
import type { RateLimiter } from "../../src/access/rate-limiter.ts";
import { SqliteQuotaLedger } from "../../src/access/sqlite-quota-ledger.ts";
import type { QuotaLedger } from "../../src/access/quota-ledger.ts";

/** The same limiter and ledger answering through promises, as a shared store does. */
function later(limiter: RateLimiter, ledger: QuotaLedger): { limiter: RateLimiter; ledger: QuotaLedger } {
  return {
    limiter: { take: async (id, perMinute) => limiter.take(id, perMinute), peek: async (id, perMinute) => limiter.peek(id, perMinute) },
    ledger: {
      usedThisMonth: async (subject, now) => ledger.usedThisMonth(subject, now),
      tryReserve: async (subject, limit, now, calls, requestId) => ledger.tryReserve(subject, limit, now, calls, requestId),
      refund: async (reservation) => ledger.refund(reservation),
      dailyUsage: async (subject, now) => ledger.dailyUsage(subject, now),
      flush: async () => ledger.flush(),
    },
  };
}

/** A fresh meter on its own clock and ledger; `async`: its limiter and ledger answer through promises. */
function meter(async: boolean): LocalMeter {
  let now = 0;
  const limiter = new TokenBuckets(() => now);
  const ledger = new SqliteQuotaLedger(openMemory().accounts, { flushMs: 60_000 });
  if (!async) return new LocalMeter(limiter, ledger);
  const wrapped = later(limiter, ledger);
  return new LocalMeter(wrapped.limiter, wrapped.ledger);
}

/** What a verdict says, without the reservation's identity. */
function shape(verdict: MeterVerdict) {
  return { rate: verdict.rate, quota: verdict.quota && { reserved: verdict.quota.reservation !== null, remaining: verdict.quota.remaining } };
}

describe("LocalMeter", () => {
  test("a limiter and ledger answering later give the verdicts of the same ones answering at once", async () => {
    const now = new Date("2026-11-24T12:00:00Z");
    // A bucket of 8 a minute (burst 2) and a quota of 3 calls: tokens run out, calls run out, a
    // request asking no quota, one only reading it (calls: 0).
    const requests: MeterRequest[] = [
      ...Array.from({ length: 4 }, (_, i) => ({ requestId: `r${i}`, bucket: { id: "key:1", perMinute: 8 }, quota: { subject: "acct:1", limit: 3, calls: 1 }, now })),
      ...Array.from({ length: 4 }, (_, i) => ({ requestId: `s${i}`, bucket: { id: "key:2", perMinute: 600 }, quota: { subject: "acct:1", limit: 3, calls: 1 }, now })),
      { requestId: "t", bucket: { id: "key:2", perMinute: 600 }, quota: null, now },
      { requestId: "u", bucket: { id: "key:2", perMinute: 600 }, quota: { subject: "acct:1", limit: 3, calls: 0 }, now },
    ];
    const sync = meter(false);
    const async = meter(true);
    const atOnce = requests.map((r) => sync.admit(r));
    expect(atOnce.some((v) => v instanceof Promise)).toBe(false);
    const waited: MeterVerdict[] = [];
    for (const r of requests) {
      const verdict = async.admit(r);
      expect(verdict).toBeInstanceOf(Promise);
      waited.push(await verdict);
    }
    expect(waited.map(shape)).toEqual((atOnce as MeterVerdict[]).map(shape));
    // The figures the cases are there for: refused tokens, then a spent quota.
    expect(waited.map((v) => v.rate.allowed)).toEqual([true, true, false, false, true, true, true, true, true, true]);
    expect(waited.map((v) => v.quota?.reservation != null)).toEqual([true, true, false, false, true, false, false, false, false, false]);
    expect(waited.map((v) => v.quota?.remaining ?? null)).toEqual([2, 1, 1, 1, 0, 0, 0, 0, null, 0]);
  });
});
