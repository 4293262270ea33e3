import type { Meter, MeterRequest, MeterVerdict } from "../../access/meter.ts";
import type { TokenBuckets } from "../../access/token-bucket.ts";
import type { MaybePromise } from "../../lib/maybe-promise.ts";
import { dayOf, monthOf } from "../../accounts/utc-month.ts";
import { SharedMeter } from "./meter.ts";
import type { SharedStore } from "./shared-store.ts";
import { orUnavailable } from "./unavailable.ts";

/**
 * The access layer's metering step on Redis: one script call per metered request (see meter.ts).
 * Redis unreachable → 503 `service_unavailable` with Retry-After (fail closed).
 *
 * A 304 (decided by If-None-Match before metering; it counts no quota) is answered without Redis:
 * its token from this server's own bucket for the key (so with N replicas a key's 304s may come N
 * times as fast as its plan's rate) and the quota left as this server last heard it from Redis for
 * the month. A server that has not yet heard a figure for the subject this month asks Redis once.
 */
export class RedisMeter implements Meter {
  private readonly meter: SharedMeter;
  /** Quota left per subject, as Redis last answered this server (one entry per key or account). */
  private readonly lastRemaining = new Map<string, { month: string; remaining: number }>();

  constructor(
    store: SharedStore,
    private readonly localLimiter: TokenBuckets,
  ) {
    this.meter = new SharedMeter(store);
  }

  admit(request: MeterRequest): MaybePromise<MeterVerdict> {
    if (request.notModified) {
      const answered = this.answerLocally(request);
      if (answered) return answered;
    }
    return orUnavailable(async () => {
      const verdict = await this.meter.take({ requestId: request.requestId, bucketId: request.bucket.id, perMinute: request.bucket.perMinute, quota: request.quota, now: request.now });
      if (!request.quota) return { rate: verdict.rate, quota: null };
      const remaining = verdict.quotaRemaining ?? 0;
      if (verdict.quotaRemaining !== null) this.lastRemaining.set(request.quota.subject, { month: monthOf(request.now), remaining });
      const taken = verdict.outcome === "allowed" && request.quota.calls > 0;
      const reservation = taken ? { subject: request.quota.subject, month: monthOf(request.now), day: dayOf(request.now), calls: request.quota.calls, requestId: verdict.counted } : null;
      return { rate: verdict.rate, quota: { reservation, remaining } };
    });
  }

  /** A 304's verdict from this server's own figures; null when it has none for the subject this month. */
  private answerLocally(request: MeterRequest): MeterVerdict | null {
    const asked = request.quota;
    const known = asked ? this.lastRemaining.get(asked.subject) : undefined;
    if (asked && known?.month !== monthOf(request.now)) return null;
    const rate = this.localLimiter.take(request.bucket.id, request.bucket.perMinute);
    return { rate, quota: asked ? { reservation: null, remaining: known!.remaining } : null };
  }
}
