import type { MaybePromise } from "../lib/maybe-promise.ts";
import { then } from "../lib/maybe-promise.ts";
import type { QuotaLedger, Reservation, ReserveResult } from "./quota-ledger.ts";
import type { RateLimiter, RateVerdict } from "./rate-limiter.ts";

/** What one metered request asks for: a token of its bucket and, when it counts, calls of its quota. */
export interface MeterRequest {
  /**
   * The request's id with its method, path and query (countedRequestId): a shared store counts a
   * request a proxy retried on another replica once by it, together with the bucket and quota subject.
   */
  requestId: string;
  bucket: { id: string; perMinute: number };
  /**
   * Quota to take with the token, all or none; null when the request counts nothing (a test key,
   * the MCP envelope, a 304 decided before). `calls: 0` takes nothing and only reads what is left.
   */
  quota: { subject: string; limit: number; calls: number } | null;
  now: Date;
  /**
   * A 304 decided before metering (its quota is `calls: 0`): a shared meter may answer it from what
   * it already knows, without its store (a replica's own token bucket, the quota left as last seen).
   */
  notModified?: boolean;
}

export interface MeterVerdict {
  rate: RateVerdict;
  /**
   * Null when no quota was asked. `reservation`: the calls taken (null when the token was refused,
   * fewer calls were left than asked, or none were asked). `remaining`: calls left after the request.
   */
  quota: { reservation: Reservation | null; remaining: number } | null;
}

/**
 * One step per metered API request: the rate limit's token, then the monthly quota — taken
 * together, so a shared store can do both in one atomic script (bucket on its clock, counter,
 * idempotency by request id). Refunds go to the quota ledger directly.
 */
export interface Meter {
  admit(request: MeterRequest): MaybePromise<MeterVerdict>;
}

/** The in-process Meter: the limiter's token, then the ledger's reservation (both synchronous here). */
export class LocalMeter implements Meter {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly quota: QuotaLedger,
  ) {}

  // The steps as methods, not closures made per request (the in-process limiter and ledger answer
  // at once: no function is made for a later step that runs right away). A step that waits is
  // continued by a method of its own: a method holding the continuation's closure would make its
  // scope object on every call, waiting or not.
  admit(request: MeterRequest): MaybePromise<MeterVerdict> {
    const rate = this.limiter.take(request.bucket.id, request.bucket.perMinute);
    return rate instanceof Promise ? this.withQuotaLater(request, rate) : this.withQuota(request, rate);
  }

  private async withQuotaLater(request: MeterRequest, rate: Promise<RateVerdict>): Promise<MeterVerdict> {
    return this.withQuota(request, await rate);
  }

  /** The quota step, once the token was decided. */
  private withQuota(request: MeterRequest, rate: RateVerdict): MaybePromise<MeterVerdict> {
    const asked = request.quota;
    if (asked === null) return { rate, quota: null };
    if (!rate.allowed || asked.calls === 0) return this.unreserved(request, asked, rate);
    const reserved = this.quota.tryReserve(asked.subject, asked.limit, request.now, asked.calls, request.requestId);
    return reserved instanceof Promise ? this.reservedLater(request, asked, rate, reserved) : this.reservedOr(request, asked, rate, reserved);
  }

  private async reservedLater(request: MeterRequest, asked: NonNullable<MeterRequest["quota"]>, rate: RateVerdict, reserved: Promise<ReserveResult>): Promise<MeterVerdict> {
    return this.reservedOr(request, asked, rate, await reserved);
  }

  private reservedOr(request: MeterRequest, asked: NonNullable<MeterRequest["quota"]>, rate: RateVerdict, reserved: ReserveResult): MaybePromise<MeterVerdict> {
    return reserved.ok ? { rate, quota: { reservation: reserved.reservation, remaining: reserved.remaining } } : this.unreserved(request, asked, rate);
  }

  /** Nothing reserved: what is left of the quota. */
  private unreserved(request: MeterRequest, asked: NonNullable<MeterRequest["quota"]>, rate: RateVerdict): MaybePromise<MeterVerdict> {
    return then(this.quota.usedThisMonth(asked.subject, request.now), (used) => ({ rate, quota: { reservation: null, remaining: Math.max(0, asked.limit - used) } }));
  }
}
