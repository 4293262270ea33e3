/**
 * Sign-in and sign-up attempts per key (an address, or an address and an email): at most `max`
 * in a sliding window (15 minutes by default), in memory.
 */
export class AttemptLimiter {
  private readonly attempts = new Map<string, number[]>();

  constructor(
    readonly max = 5,
    private readonly windowMs = 15 * 60_000,
  ) {}

  /** Seconds until `id` may try again, or 0 when it may now. */
  blockedFor(id: string, now: number): number {
    const recent = this.recent(id, now);
    if (recent.length < this.max) return 0;
    return Math.max(1, Math.ceil((recent[recent.length - this.max]! + this.windowMs - now) / 1000));
  }

  record(id: string, now: number): void {
    const recent = this.recent(id, now);
    recent.push(now);
    this.attempts.set(id, recent);
    if (this.attempts.size > 10_000) this.prune(now);
  }

  /** Takes back one attempt recorded at `at` (a reservation that turned out not to count). */
  unrecord(id: string, at: number): void {
    const times = this.attempts.get(id);
    const i = times?.lastIndexOf(at) ?? -1;
    if (i >= 0) times!.splice(i, 1);
  }

  clear(id: string): void {
    this.attempts.delete(id);
  }

  private recent(id: string, now: number): number[] {
    return (this.attempts.get(id) ?? []).filter((t) => now - t < this.windowMs);
  }

  private prune(now: number): void {
    for (const [id, times] of this.attempts) if (times.every((t) => now - t >= this.windowMs)) this.attempts.delete(id);
  }
}

/** An attempt counted in advance: kept, it stays counted; released, it is taken back. */
export interface Reservation {
  release(): void;
}

/**
 * Counts one attempt under every (limiter, id) at once, unless one of them is full: then nothing is
 * counted and the answer is the seconds to wait. Synchronous on purpose — called before the password
 * is hashed (an await), so parallel attempts cannot all pass the check before any is counted.
 */
export function reserveAttempt(under: readonly (readonly [AttemptLimiter, string])[], now: number): Reservation | { wait: number } {
  const wait = Math.max(0, ...under.map(([limiter, id]) => limiter.blockedFor(id, now)));
  if (wait > 0) return { wait };
  for (const [limiter, id] of under) limiter.record(id, now);
  let released = false;
  return {
    release: () => {
      if (!released) for (const [limiter, id] of under) limiter.unrecord(id, now);
      released = true;
    },
  };
}
