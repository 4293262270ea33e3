/**
 * When webhook deliveries are retried: exponential backoff with jitter over a day, then failed.
 * The first retries come soon — 10 s, 30 s and 2 min after failed attempts 1, 2 and 3 — then each
 * wait is 4 times the one before (8 min, 32 min, 2 h 8 min), 4 h at most; ±20 % jitter so many
 * endpoints failing together do not retry together. About 12 attempts fit in the 24 hours after
 * the event (the last one at most 4 h + jitter before the window ends).
 */
export const ATTEMPT_TIMEOUT_MS = 10_000;
export const DELIVERY_WINDOW_MS = 24 * 3600_000;
/** An endpoint whose deliveries have failed for this long without one success is disabled. */
export const DISABLE_AFTER_MS = 3 * 24 * 3600_000;
/** The waits after failed attempts 1, 2 and 3. */
const FIRST_RETRIES_MS = [10_000, 30_000, 120_000] as const;
const GROWTH = 4;
const MAX_RETRY_MS = 4 * 3600_000;
const JITTER = 0.2;

/**
 * The wait after failed attempt number `attempt` (1-based); `random` in [0, 1).
 * @example retryDelayMs(3, () => 0.5) // 120000
 */
export function retryDelayMs(attempt: number, random: () => number): number {
  const n = Math.max(1, attempt);
  const last = FIRST_RETRIES_MS.length;
  const base = n <= last ? FIRST_RETRIES_MS[n - 1]! : Math.min(MAX_RETRY_MS, FIRST_RETRIES_MS[last - 1] * GROWTH ** (n - last));
  return Math.round(base * (1 + JITTER * (2 * random() - 1)));
}

/** The next attempt's time after a failure, or null when it would fall outside the delivery window. */
export function nextAttemptAt(createdAt: number, failedAt: number, attempt: number, random: () => number): number | null {
  const at = failedAt + retryDelayMs(attempt, random);
  return at > createdAt + DELIVERY_WINDOW_MS ? null : at;
}
