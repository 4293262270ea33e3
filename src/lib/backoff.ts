/**
 * Exponential back-off, capped: after failure n (1, 2, …) the next attempt waits
 * `firstMs × 2^(n−1)`, never more than `maxMs`; a success starts over. Used where a failing
 * attempt would otherwise repeat at a fixed short interval (the usage flush on a full disk, a
 * replica downloading a snapshot it refuses) — and log every time.
 *
 * @example
 * const backoff = new Backoff(2_000, 300_000);
 * backoff.fail(); backoff.fail(); backoff.fail() // → 2000, 4000, 8000
 * backoff.succeed(); backoff.fail()              // → 2000
 */
export class Backoff {
  private failures = 0;

  constructor(
    readonly firstMs: number,
    readonly maxMs: number,
  ) {}

  /** Counts a failure; returns how long to wait before the next attempt. */
  fail(): number {
    this.failures++;
    return Math.min(this.maxMs, this.firstMs * 2 ** Math.min(this.failures - 1, 52));
  }

  succeed(): void {
    this.failures = 0;
  }

  /** Failures in a row so far. */
  get failed(): number {
    return this.failures;
  }
}

/** How a component sets a timer; tests give one that records the delays instead of waiting. */
export interface Timer {
  set(run: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

/** setTimeout, not keeping the process alive. */
export const realTimer: Timer = {
  set(run, ms) {
    const handle = setTimeout(run, ms);
    (handle as { unref?: () => void }).unref?.();
    return handle;
  },
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
