import { availableParallelism } from "node:os";

/**
 * Bounds the password hashing (argon2, about 19 MiB and tens of ms of one core each) that sign-ins
 * and sign-ups can cause: at most `slots` hashes at once in the process (half the cores, at least
 * one, so parallel sign-ins cannot take every core from the API), at most `perAddress` at once for
 * one client address, and at most `maxWaiting` waiting for a turn — past that, `run` answers null
 * at once (the portal answers 429 with Retry-After: 1). Waiters go first come, first served,
 * skipping any whose address already has `perAddress` running.
 */
export class HashingGate {
  private running = 0;
  private readonly runningBy = new Map<string, number>();
  private readonly waiting: { address: string; start: () => void }[] = [];

  constructor(
    readonly slots = Math.max(1, Math.floor(availableParallelism() / 2)),
    readonly perAddress = 2,
    readonly maxWaiting = 64,
  ) {}

  /** `work()` when its turn comes, or null when too many are already waiting. */
  async run<T>(address: string, work: () => Promise<T>): Promise<T | null> {
    if (this.mayStart(address)) this.take(address);
    else {
      if (this.waiting.length >= this.maxWaiting) return null;
      const turn = Promise.withResolvers<void>();
      this.waiting.push({ address, start: turn.resolve });
      await turn.promise; // startNext() took the slot for us
    }
    try {
      return await work();
    } finally {
      this.give(address);
      this.startNext();
    }
  }

  /** Hashes running now, and waiting (for tests and metrics). */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  private mayStart(address: string): boolean {
    return this.running < this.slots && (this.runningBy.get(address) ?? 0) < this.perAddress;
  }

  private take(address: string): void {
    this.running++;
    this.runningBy.set(address, (this.runningBy.get(address) ?? 0) + 1);
  }

  private give(address: string): void {
    this.running--;
    const left = this.runningBy.get(address)! - 1;
    if (left > 0) this.runningBy.set(address, left);
    else this.runningBy.delete(address);
  }

  private startNext(): void {
    for (let i = 0; i < this.waiting.length && this.running < this.slots; ) {
      const next = this.waiting[i]!;
      if (!this.mayStart(next.address)) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      this.take(next.address);
      next.start();
    }
  }
}
