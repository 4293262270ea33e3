import type { Settings } from "../config.ts";
import type { DataSet } from "../deps.ts";
import type { LoadMeter } from "../serving/load-meter.ts";
import type { Audience } from "../openapi/operation.ts";
import { planAllows, type Plan } from "../accounts/plans.ts";
import { planQuota, planRate } from "../accounts/plan-limits.ts";
import type { ActiveKey } from "./key-lookup.ts";
import { accountSubject, type Reservation } from "./quota-ledger.ts";
import type { AccessService } from "./service.ts";
import { KeyCache } from "./key-cache.ts";
import { TokenBuckets } from "./token-bucket.ts";
import { SqliteQuotaLedger } from "./sqlite-quota-ledger.ts";
import { LocalMeter } from "./meter.ts";
import { answerEtag } from "./plugin.ts";
import { SECRET_CACHE_CONTROL } from "./response-headers.ts";
import type { ExpressAccess, ExpressVerdict } from "../http/express-lane.ts";

/** A key's bucket, quota subject and plan limits, made once per key (the key cache's object). */
interface KeyTerms {
  bucket: string;
  perMinute: number;
  subject: string;
  quota: number;
}

/**
 * The access layer's steps for the one case the express lane answers: an API operation with a
 * plan audience, asked with a live secret key that the plan allows, with in-process access state
 * (the key cache, token buckets, the SQLite quota ledger). The same objects the access layer's
 * `guard` uses, in the same way: the key by its SHA-256 in constant time (KeyCache), the key's
 * bucket `key:<id>` at the plan's rate, the account's month at the plan's quota, the load meter
 * noted. Every other case — a test or publishable key, no key or an unknown one, a spent bucket or
 * quota, a shared store (a cluster's Redis) — is null with nothing taken, so the access layer's
 * own steps answer it with their refusals: a spent month takes no token, and a refused token
 * takes nothing from its bucket (token-bucket.ts) and gives the call just counted back at once.
 *
 * Null (no express admission at all) unless the access service is the in-process one.
 */
export function expressAccess(access: AccessService, settings: Settings, liveData: DataSet, loadMeter: LoadMeter): ExpressAccess | null {
  if (!(access.keys instanceof KeyCache) || !(access.limiter instanceof TokenBuckets) || !(access.quota instanceof SqliteQuotaLedger) || !(access.meter instanceof LocalMeter)) return null;
  const keys: KeyCache = access.keys;
  const limiter: TokenBuckets = access.limiter;
  const quota: SqliteQuotaLedger = access.quota;
  const terms = new WeakMap<ActiveKey, KeyTerms>();
  const termsOf = (key: ActiveKey): KeyTerms => {
    let t = terms.get(key);
    if (!t) terms.set(key, (t = { bucket: `key:${key.id}`, perMinute: planRate(settings, key.plan), subject: accountSubject(key.accountId), quota: planQuota(settings, key.plan) }));
    return t;
  };
  const verdict: ExpressVerdict = { keyPrefix: "", rateLimit: 0, rateRemaining: 0, rateReset: 0, quotaLimit: 0, quotaRemaining: 0, reservation: undefined };

  function admit(presented: string, audience: Audience, date: Date, at: number): ExpressVerdict | null {
    if (audience !== "free" && audience !== "basic" && audience !== "pro") return null;
    const key = keys.lookup(presented, at);
    if (key === null || key.kind !== "live" || !planAllows(key.plan, audience as Plan)) return null;
    const t = termsOf(key);
    // The call is counted first: a spent month takes nothing (and leaves the bucket untouched);
    // a refused token gives the call back at once, before anything else runs.
    const reserved = quota.tryReserve(t.subject, t.quota, date, 1);
    if (!reserved.ok) return null;
    const rate = limiter.take(t.bucket, t.perMinute, at);
    if (!rate.allowed) {
      quota.refund(reserved.reservation);
      return null;
    }
    loadMeter.note(at);
    verdict.keyPrefix = key.prefix;
    verdict.rateLimit = rate.limit;
    verdict.rateRemaining = rate.remaining;
    verdict.rateReset = rate.reset;
    verdict.quotaLimit = t.quota;
    verdict.quotaRemaining = reserved.remaining;
    verdict.reservation = reserved.reservation;
    return verdict;
  }

  return { admit, cacheControl: SECRET_CACHE_CONTROL, refund: (admitted) => quota.refund(admitted.reservation as Reservation), etag: (request, snapshot, at) => answerEtag(request, liveData, snapshot.version, true, at), epoch: (at) => liveData.epoch.at(at) };
}
