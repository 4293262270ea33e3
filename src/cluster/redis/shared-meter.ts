import type { Meter, MeterRequest, MeterVerdict } from "../../http/access/meter.ts";
import { dayOf, monthOf } from "../../accounts/utc-month.ts";
import { SharedMeter } from "./meter.ts";
import type { SharedStore } from "./shared-store.ts";
import { orUnavailable } from "./unavailable.ts";

/**
 * The access layer's metering step on Redis: one script call per metered request (see meter.ts).
 * Redis unreachable → 503 `service_unavailable` with Retry-After (fail closed).
 */
export class RedisMeter implements Meter {
  private readonly meter: SharedMeter;

  constructor(store: SharedStore) {
    this.meter = new SharedMeter(store);
  }

  admit(request: MeterRequest): Promise<MeterVerdict> {
    return orUnavailable(async () => {
      const verdict = await this.meter.take({ requestId: request.requestId, bucketId: request.bucket.id, perMinute: request.bucket.perMinute, quota: request.quota, now: request.now });
      if (!request.quota) return { rate: verdict.rate, quota: null };
      const taken = verdict.outcome === "allowed" && request.quota.calls > 0;
      const reservation = taken ? { subject: request.quota.subject, month: monthOf(request.now), day: dayOf(request.now), calls: request.quota.calls, requestId: request.requestId } : null;
      return { rate: verdict.rate, quota: { reservation, remaining: verdict.quotaRemaining ?? 0 } };
    });
  }
}
