/**
 * When webhook deliveries are retried: exponential backoff with jitter over a day, then failed.
 * Attempt n (1-based) failing waits 10 s × 3^(n−1) (10 s, 30 s, 90 s, 4.5 min, 13.5 min, 40 min,
 * 2 h, then 6 h at most), ±20 % jitter so many endpoints failing together do not retry together.
 * About 11 attempts fit in the 24 hours after the event.
 */
export const ATTEMPT_TIMEOUT_MS = 10_000;
export const DELIVERY_WINDOW_MS = 24 * 3600_000;
/** An endpoint whose deliveries have failed for this long without one success is disabled. */
export const DISABLE_AFTER_MS = 3 * 24 * 3600_000;
const FIRST_RETRY_MS = 10_000;
const MAX_RETRY_MS = 6 * 3600_000;
const JITTER = 0.2;

/**
 * The wait after failed attempt number `attempt`; `random` in [0, 1).
 * @example retryDelayMs(1, () => 0.5) // 10000
 */
export function retryDelayMs(attempt: number, random: () => number): number {
  const base = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 3 ** Math.max(0, attempt - 1));
  return Math.round(base * (1 + JITTER * (2 * random() - 1)));
}

/** The next attempt's time after a failure, or null when it would fall outside the delivery window. */
export function nextAttemptAt(createdAt: number, failedAt: number, attempt: number, random: () => number): number | null {
  const at = failedAt + retryDelayMs(attempt, random);
  return at > createdAt + DELIVERY_WINDOW_MS ? null : at;
}
