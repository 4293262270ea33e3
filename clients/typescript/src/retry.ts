/**
 * When a 429 or 503 is tried again: after the `Retry-After` the server sent, at most
 * `maxAttempts` tries in all, and only while the waits add up to at most `maxWaitSeconds` (a
 * wait past that, such as a spent monthly quota's, fails at once instead of waiting in vain).
 */
export interface RetryPolicy {
  /** Tries in all, the first included (default 3; 1 never retries). */
  maxAttempts: number;
  /** The most a call may wait in all before its retries (default 30 s). */
  maxWaitSeconds: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 3, maxWaitSeconds: 30 };

const RETRIED = new Set([429, 503]);

/** Seconds a `Retry-After` value asks for (delta-seconds or an HTTP date); null when absent or unreadable. */
export function retryAfterSeconds(value: string | null, nowMs = Date.now()): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - nowMs) / 1000));
}

/** The seconds to wait before trying again, or null to fail now. */
export function retryDelay(status: number, retryAfter: number | null, attempt: number, waitedSeconds: number, policy: RetryPolicy): number | null {
  if (!RETRIED.has(status) || retryAfter === null || attempt >= policy.maxAttempts) return null;
  return waitedSeconds + retryAfter <= policy.maxWaitSeconds ? retryAfter : null;
}

/** Resolves after `seconds`, or rejects with the signal's reason when it aborts first. */
export function sleep(seconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, seconds * 1000);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
