import { daysOfMonth, dayOf, monthOf } from "../../accounts/utc-month.ts";
import type { QuotaLedger, Reservation, ReserveResult } from "../../access/quota-ledger.ts";
import { COUNTER_TTL_S, REQUEST_TTL_S, countedRequestHash, redisKeys } from "./keys.ts";
import { refundScript } from "./meter.ts";
import { LuaScript, StoreUnavailable, type SharedStore } from "./shared-store.ts";
import { orUnavailable } from "./unavailable.ts";

/** All `calls` or none of a month's quota, once per counted request (countedRequestHash): [ok, remaining] or [-1] when the month is not loaded. */
const RESERVE = new LuaScript(`
local stored = redis.call('GET', KEYS[3])
if stored then return cjson.decode(stored) end
local counted = redis.call('GET', KEYS[1])
if not counted and redis.call('EXISTS', KEYS[4]) == 0 then return {-1, 0} end
local used = tonumber(counted or '0')
local limit = tonumber(ARGV[1])
local calls = tonumber(ARGV[2])
if used + calls > limit then return {0, 0} end
redis.call('INCRBY', KEYS[1], calls)
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('INCRBY', KEYS[2], calls)
redis.call('EXPIRE', KEYS[2], ARGV[4])
local result = {1, limit - used - calls}
redis.call('SET', KEYS[3], cjson.encode(result), 'EX', ARGV[3])
return result
`);

/**
 * The quota ledger of a cluster: monthly and daily counters in Redis, shared by every server
 * (the meter takes most calls in its one script; this serves the rest: calls counted by the work
 * a request asks, refunds, the figures in headers and the portal's chart). accounts.sqlite gets
 * the counts from the primary's UsageSync; `flush()` has nothing to write.
 */
export class SharedQuotaLedger implements QuotaLedger {
  constructor(
    private readonly store: SharedStore,
    private readonly warn: (msg: string, fields: Record<string, unknown>) => void = () => {},
  ) {}

  usedThisMonth(subject: string, now: Date): Promise<number> {
    return orUnavailable(async () => {
      const month = monthOf(now);
      const [used, seeded] = (await Promise.all([this.store.send("GET", [redisKeys.month(subject, month)]), this.store.send("EXISTS", [redisKeys.seeded(month)])])) as [string | null, number];
      if (used === null && Number(seeded) !== 1) throw new StoreUnavailable("this month's usage is not loaded into Redis yet");
      return Number(used ?? 0);
    });
  }

  tryReserve(subject: string, limit: number, now: Date, calls = 1, requestId: string = crypto.randomUUID()): Promise<ReserveResult> {
    return orUnavailable(async () => {
      const month = monthOf(now);
      const day = dayOf(now);
      // Apart from the meter's verdict of the same request (it took the token; this takes its work's calls).
      const counted = countedRequestHash("work", subject, requestId);
      const keys = [redisKeys.month(subject, month), redisKeys.day(subject, day), redisKeys.request(counted), redisKeys.seeded(month)];
      const [ok, remaining] = ((await this.store.script(RESERVE, keys, [limit, calls, REQUEST_TTL_S, COUNTER_TTL_S])) as number[]).map(Number) as [number, number];
      if (ok === -1) throw new StoreUnavailable("this month's usage is not loaded into Redis yet");
      if (ok !== 1) return { ok: false, remaining: 0 };
      const reservation: Reservation = { subject, month, day, calls, requestId: counted };
      return { ok: true, remaining, reservation };
    });
  }

  /**
   * Never rejects (callers fire it after the answer is sent): a refund Redis does not take is
   * logged and lost — the call stays counted (counted but unserved, never the reverse).
   */
  async refund(reservation: Reservation): Promise<void> {
    if (!reservation.requestId) return;
    const keys = [redisKeys.month(reservation.subject, reservation.month), redisKeys.day(reservation.subject, reservation.day), redisKeys.request(reservation.requestId)];
    try {
      await this.store.script(refundScript, keys, [reservation.calls]);
    } catch (error) {
      this.warn("usage: refund not taken by Redis (the call stays counted)", { subject: reservation.subject, error: String((error as Error).message) });
    }
  }

  dailyUsage(subject: string, now: Date): Promise<{ day: string; count: number }[]> {
    return orUnavailable(async () => {
      const days = daysOfMonth(now);
      const values = (await this.store.send("MGET", days.map((day) => redisKeys.day(subject, day)))) as (string | null)[];
      return days.map((day, i) => ({ day, count: Number(values[i] ?? 0) }));
    });
  }

  flush(): void {}
}
