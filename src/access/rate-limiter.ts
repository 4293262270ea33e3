import type { MaybePromise } from "../lib/maybe-promise.ts";

/** A rate limit's answer and the figures of its headers. */
export interface RateVerdict {
  allowed: boolean;
  /** The per-minute figure (X-RateLimit-Limit). */
  limit: number;
  /** Whole requests left now (X-RateLimit-Remaining). */
  remaining: number;
  /** Whole seconds until the bucket is full again (X-RateLimit-Reset). */
  reset: number;
  /** When refused: whole seconds until one request is allowed (≥ 1). */
  retryAfter: number;
}

/**
 * Per-minute rate limits, one token bucket per id (`key:<id>`, `ip:<address>`, `widget:<address>`,
 * `mcp:<id>`); a bucket holds a quarter of a minute's tokens (burstOf). In process: TokenBuckets.
 * A shared store (buckets on the store's clock) may answer later: both methods may return a promise.
 */
export interface RateLimiter {
  /** Takes one token from the bucket `id`, if there is one. */
  take(id: string, perMinute: number): MaybePromise<RateVerdict>;
  /** The bucket's figures without taking a token (for answers refused for another reason). */
  peek(id: string, perMinute: number): MaybePromise<RateVerdict>;
}
