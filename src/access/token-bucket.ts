import type { RateLimiter, RateVerdict } from "./rate-limiter.ts";

/**
 * The in-process RateLimiter: token buckets in memory. `perMinute` tokens refill evenly over a
 * minute, and a bucket holds at most a quarter of that (at least 1), the burst: Free's 60/min
 * allows 15 requests at once, then one a second. One bucket per id (a key, or a client address).
 */

interface Bucket {
  tokens: number;
  at: number;
  perMinute: number;
}

export function burstOf(perMinute: number): number {
  return Math.max(1, Math.floor(perMinute / 4));
}

const SWEEP_EVERY_MS = 60_000;

export class TokenBuckets implements RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private sweptAt: number;
  private readonly clock: () => number;
  /** Whether the clock is performance.now(), which a caller may have read already (`at`). */
  private readonly realClock: boolean;

  constructor(clock?: () => number) {
    this.clock = clock ?? (() => performance.now());
    this.realClock = clock === undefined;
    this.sweptAt = this.clock();
  }

  /**
   * Takes one token from the bucket `id`, if there is one. `at`: the caller's reading of
   * performance.now() (one clock read a request), used unless the buckets have a clock of their own.
   */
  take(id: string, perMinute: number, at?: number): RateVerdict {
    return this.verdict(id, perMinute, true, at);
  }

  /** The bucket's figures without taking a token (for answers refused for another reason). */
  peek(id: string, perMinute: number): RateVerdict {
    return this.verdict(id, perMinute, false);
  }

  get size(): number {
    return this.buckets.size;
  }

  private verdict(id: string, perMinute: number, consume: boolean, at?: number): RateVerdict {
    const now = at !== undefined && this.realClock ? at : this.clock();
    this.sweep(now);
    const capacity = burstOf(perMinute);
    const perMs = perMinute / 60_000;
    const bucket = this.buckets.get(id);
    let tokens = bucket ? Math.min(capacity, bucket.tokens + (now - bucket.at) * perMs) : capacity;
    let allowed = true;
    if (consume) {
      allowed = tokens >= 1;
      if (allowed) tokens -= 1;
      // The bucket is updated in place: a new object per request was garbage at every request.
      if (bucket) {
        bucket.tokens = tokens;
        bucket.at = now;
        bucket.perMinute = perMinute;
      } else this.buckets.set(id, { tokens, at: now, perMinute });
    }
    const ms = (need: number) => Math.max(0, need) / perMs;
    return {
      allowed,
      limit: perMinute,
      remaining: Math.floor(tokens),
      reset: Math.ceil(ms(capacity - tokens) / 1000),
      retryAfter: Math.max(1, Math.ceil(ms(1 - tokens) / 1000)),
    };
  }

  /** Drops buckets that have refilled completely: they are the same as no bucket. */
  private sweep(now: number): void {
    if (now - this.sweptAt < SWEEP_EVERY_MS) return;
    this.sweptAt = now;
    for (const [id, b] of this.buckets) {
      if (b.tokens + (now - b.at) * (b.perMinute / 60_000) >= burstOf(b.perMinute)) this.buckets.delete(id);
    }
  }
}
