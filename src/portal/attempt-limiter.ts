/**
 * Sign-in and sign-up attempts per address and per email: at most `max` in a sliding window
 * (5 per 15 minutes by default), in memory.
 */
export class AttemptLimiter {
  private readonly attempts = new Map<string, number[]>();

  constructor(
    private readonly max = 5,
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
