/**
 * How much of the serving thread recent cold computations took (answers not in a cache): over a
 * sliding second, in 100 ms buckets. When a new data version empties the answer caches of a busy
 * server, this is what decides between computing an answer now and serving the previous data
 * version's answer while it is recomputed in the background (see answer-cache.ts). On a thread
 * already busy with warm answers the budget shrinks, so that cold work does not saturate it (a
 * saturated thread queues every request behind it, and the queue only grows).
 *
 * The budget is also paced: cold work may run at most BURST_MS ahead of its rate (a token
 * bucket refilled at the budget per second). Without it, each 100 ms bucket leaving the window
 * freed its share at once and waiting requests spent it back to back — 80–350 ms in which no
 * warm request was answered (measured after an import at 5,000 requests/s).
 */
export class ColdBudget {
  private readonly buckets = new Float64Array(10);
  /** The serving thread's CPU time (ms) at the start of each bucket. */
  private readonly threadAt = new Float64Array(10);
  private bucketAt = 0;
  private limit: number;
  /** Cold work (ms) that may start now; negative after work that overran it (see BURST_MS). */
  private tokens = BURST_MS;
  private tokensAt: number;

  /**
   * @param msPerSecond the thread time per second cold computations may take before stale
   *   answers are preferred (default 250: a quarter of the thread)
   * @param clock milliseconds, increasing
   * @param threadMs the serving thread's CPU time so far, ms (null: a fixed budget). With it the
   *   budget also leaves the thread headroom: on a busy thread it shrinks, to 20 ms a second at
   *   least (see limitFor).
   */
  constructor(
    private readonly msPerSecond = 250,
    private readonly clock: () => number = () => performance.now(),
    private readonly threadMs: (() => number) | null = null,
  ) {
    this.limit = msPerSecond;
    this.tokensAt = clock();
    if (threadMs) this.threadAt.fill(threadMs());
  }

  /** Records `ms` of cold computation just done. */
  spend(ms: number): void {
    this.advance();
    this.buckets[this.bucketAt % 10]! += ms;
    // Work that overran its tokens is repaid before more starts, a second's budget at most.
    this.tokens = Math.max(-this.limit, this.tokens - ms);
  }

  /** Thread time spent on cold computations over the last second, ms. */
  spent(): number {
    this.advance();
    let sum = 0;
    for (const ms of this.buckets) sum += ms;
    return sum;
  }

  /** Cold work allowed over the last second, ms (msPerSecond, or less on a busy thread). */
  allowed(): number {
    this.advance();
    return this.limit;
  }

  /** True while cold work is within the budget's pace: at most its rate, in bursts of BURST_MS. */
  available(): boolean {
    this.advance();
    return this.tokens > 0;
  }

  private advance(): void {
    const now = this.clock();
    this.tokens = Math.min(BURST_MS, this.tokens + ((now - this.tokensAt) * this.limit) / 1000);
    this.tokensAt = now;
    const bucket = Math.floor(now / 100);
    if (bucket <= this.bucketAt) return;
    if (bucket - this.bucketAt >= 10) this.buckets.fill(0);
    else for (let b = this.bucketAt + 1; b <= bucket; b++) this.buckets[b % 10] = 0;
    if (this.threadMs) {
      const cpu = this.threadMs();
      if (bucket - this.bucketAt >= 10) this.threadAt.fill(cpu);
      else for (let b = this.bucketAt + 1; b <= bucket; b++) this.threadAt[b % 10] = cpu;
      // The oldest bucket's start is 900 ms ago; after a quiet second or more, the whole budget.
      this.limit = bucket - this.bucketAt >= 10 ? this.msPerSecond : this.limitFor(cpu - this.threadAt[(bucket + 1) % 10]!, 900);
    }
    this.bucketAt = bucket;
  }

  /**
   * The next budget from the thread's busy time over the last `windowMs` (all of it: warm answers,
   * sockets, logging, garbage collection, the cold work itself). Feedback: it moves by half the gap
   * between the busy time and 65 % of the thread, every 100 ms. Capped by what warm work (busy
   * time less the cold work measured) leaves of that 65 %: so a busy thread enters an import's
   * switch with a small budget already, before the feedback has seen the cold work's full cost
   * (about twice the time measured around it: first serialization, compression, garbage).
   */
  private limitFor(busyMs: number, windowMs: number): number {
    // Called as a bucket starts (it is still empty): the others cover the same window.
    let coldMs = 0;
    for (const ms of this.buckets) coldMs += ms;
    const busy = (busyMs * 1000) / windowMs;
    const cold = (coldMs * 1000) / windowMs;
    const cap = Math.min(this.msPerSecond, BUSY_TARGET_MS - (busy - cold));
    return Math.max(MIN_MS_PER_SECOND, Math.min(cap, this.limit + (BUSY_TARGET_MS - busy) / 2));
  }
}

/** Cold work that may run back to back (ms) before the budget's rate paces it. */
const BURST_MS = 10;
/**
 * The share of the serving thread (ms per second) warm and cold work may fill together. Requests
 * arrive in bursts, so a thread kept busier queues them for longer: at 80 % the seconds after an
 * import's switch measured p99 15–70 ms at 5,000 requests/s, at 65 % mostly 8–20 ms (the
 * recomputation takes longer; previous answers stand in meanwhile).
 */
const BUSY_TARGET_MS = 650;
/** Cold work always allowed, however busy the thread: stale answers must be renewed in the end. */
const MIN_MS_PER_SECOND = 20;

/** The calling thread's CPU time (user + system) so far, ms. */
export function threadCpuMs(): number {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
}
