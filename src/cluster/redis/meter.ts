import type { RateVerdict } from "../../access/rate-limiter.ts";
import { burstOf } from "../../access/token-bucket.ts";
import { dayOf, monthOf } from "../../accounts/utc-month.ts";
import { COUNTER_TTL_S, REQUEST_TTL_S, countedRequestHash, redisKeys } from "./keys.ts";
import { LuaScript, StoreUnavailable, type SharedStore } from "./shared-store.ts";

/**
 * One metered request, decided in one atomic script on Redis's clock (TIME): the token bucket
 * of its rate-limit id (refilled evenly, `perMinute` a minute, holding at most a quarter of it —
 * as token-bucket.ts), then, if a token was taken, the monthly quota counter (all `calls` or
 * none; `calls` 0 only reads what is left). A counted request's verdict is kept under its
 * request id scoped to its bucket, quota subject and request (countedRequestHash), so a retry by
 * the proxy on another replica gets the same verdict without being counted again — and no other
 * key, account or request ever gets it.
 * Returns [status, rate remaining, rate reset s, retry after s, quota remaining (-1: none), replayed]
 * with status 1 allowed, 2 rate limited, 3 quota exceeded, 4 month not loaded yet.
 */
const METER = new LuaScript(`
local stored = redis.call('GET', KEYS[4])
if stored then
  local r = cjson.decode(stored)
  r[6] = 1
  return r
end
local perMinute = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local calls = tonumber(ARGV[4])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local perMs = perMinute / 60000
local tokens = burst
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
if b[1] then tokens = math.min(burst, tonumber(b[1]) + math.max(0, now - tonumber(b[2])) * perMs) end
local function seconds(need)
  if need <= 0 then return 0 end
  return math.ceil(need / perMs / 1000)
end
local used = 0
if limit >= 0 then
  local counted = redis.call('GET', KEYS[2])
  if not counted and redis.call('EXISTS', KEYS[5]) == 0 then return {4, 0, 0, 1, -1, 0} end
  used = tonumber(counted or '0')
end
local result
if tokens < 1 then
  local left = -1
  if limit >= 0 then left = math.max(0, limit - used) end
  result = {2, 0, seconds(burst - tokens), math.max(1, seconds(1 - tokens)), left, 0}
else
  local remaining = -1
  local status = 1
  if limit >= 0 then
    if used + calls > limit then
      status = 3
      remaining = math.max(0, limit - used)
    else
      if calls > 0 then
        redis.call('INCRBY', KEYS[2], calls)
        redis.call('EXPIRE', KEYS[2], ARGV[6])
        redis.call('INCRBY', KEYS[3], calls)
        redis.call('EXPIRE', KEYS[3], ARGV[6])
      end
      remaining = limit - used - calls
    end
  end
  tokens = tokens - 1
  result = {status, math.floor(tokens), seconds(burst - tokens), math.max(1, seconds(1 - tokens)), remaining, 0}
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / perMs) + 1000)
if result[1] == 1 and limit >= 0 and calls > 0 then redis.call('SET', KEYS[4], cjson.encode(result), 'EX', ARGV[5]) end
return result
`);

/** Gives back a counted request's calls (its answer was a 304, a 429 or a server error). */
export const refundScript = new LuaScript(`
if redis.call('DEL', KEYS[3]) == 0 then return 0 end
local calls = tonumber(ARGV[1])
for i = 1, 2 do
  local v = tonumber(redis.call('GET', KEYS[i]) or '0')
  if v > 0 then redis.call('SET', KEYS[i], math.max(0, v - calls), 'KEEPTTL') end
end
return 1
`);

export interface MeterRequest {
  /** The request's id with its method, path and query (countedRequestId; the same on a proxy's retry). */
  requestId: string;
  /** The rate-limit bucket (`key:12`, `widget:203.0.113.7`, …) and its per-minute figure. */
  bucketId: string;
  perMinute: number;
  /** The quota subject and its monthly limit; null: rate limit only (test keys). */
  quota: { subject: string; limit: number; calls: number } | null;
  now: Date;
}

export interface MeterVerdict {
  outcome: "allowed" | "rate_limited" | "quota_exceeded";
  rate: RateVerdict;
  /** Calls left this month after this one; null without a quota. */
  quotaRemaining: number | null;
  /** True when this request was counted before (a retry): nothing was taken now. */
  replayed: boolean;
  /** What Redis remembers the request by (a refund names it). */
  counted: string;
}

const OUTCOMES = { 1: "allowed", 2: "rate_limited", 3: "quota_exceeded" } as const;

/**
 * Rate limits and quotas shared by every server through Redis (one script call per metered
 * request). A store that does not answer in time throws StoreUnavailable: the caller fails
 * closed (503 service_unavailable), never over quota.
 */
export class SharedMeter {
  constructor(private readonly store: SharedStore) {}

  async take(request: MeterRequest): Promise<MeterVerdict> {
    const month = monthOf(request.now);
    const subject = request.quota?.subject ?? "none";
    const counted = countedRequestHash(request.bucketId, subject, request.requestId);
    const keys = [redisKeys.bucket(request.bucketId), redisKeys.month(subject, month), redisKeys.day(subject, dayOf(request.now)), redisKeys.request(counted), redisKeys.seeded(month)];
    const args = [request.perMinute, burstOf(request.perMinute), request.quota?.limit ?? -1, request.quota?.calls ?? 1, REQUEST_TTL_S, COUNTER_TTL_S];
    const reply = (await this.store.script(METER, keys, args)) as number[];
    const [status, remaining, reset, retryAfter, quotaRemaining, replayed] = reply.map(Number) as [number, number, number, number, number, number];
    if (status === 4) throw new StoreUnavailable(`this month's usage is not loaded into Redis yet (the primary loads it from accounts.sqlite)`);
    const outcome = OUTCOMES[status as 1 | 2 | 3];
    if (!outcome) throw new StoreUnavailable(`unexpected meter reply ${JSON.stringify(reply)}`);
    return {
      outcome,
      rate: { allowed: status !== 2, limit: request.perMinute, remaining, reset, retryAfter },
      quotaRemaining: request.quota && quotaRemaining >= 0 ? quotaRemaining : null,
      replayed: replayed === 1,
      counted,
    };
  }

  /** Gives back what a counted request took (once: a second refund of the same request does nothing). */
  async refund(request: MeterRequest): Promise<boolean> {
    if (!request.quota) return false;
    const counted = countedRequestHash(request.bucketId, request.quota.subject, request.requestId);
    const keys = [redisKeys.month(request.quota.subject, monthOf(request.now)), redisKeys.day(request.quota.subject, dayOf(request.now)), redisKeys.request(counted)];
    return Number(await this.store.script(refundScript, keys, [request.quota.calls])) === 1;
  }
}
