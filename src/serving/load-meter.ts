/**
 * Requests per second an app is answering, over a sliding second in 100 ms buckets: background
 * work (a search index rebuild) paces itself only while the server is busy, and runs flat out
 * when it is not (start-up, a quiet night). One per process; the access layer counts every API request.
 */
export class LoadMeter {
  private readonly buckets = new Uint32Array(10);
  private bucketAt = 0;
  private readonly clock: () => number;
  /** Whether the clock is performance.now(), which a caller may have read already (`at`). */
  private readonly realClock: boolean;

  constructor(clock?: () => number) {
    this.clock = clock ?? (() => performance.now());
    this.realClock = clock === undefined;
  }

  /** Counts one request (`at`: the caller's reading of performance.now(), used unless the meter has a clock of its own). */
  note(at?: number): void {
    this.advance(at !== undefined && this.realClock ? at : this.clock());
    this.buckets[this.bucketAt % 10]!++;
  }

  /** Requests over the last second. */
  perSecond(): number {
    this.advance(this.clock());
    let sum = 0;
    for (const n of this.buckets) sum += n;
    return sum;
  }

  private advance(now: number): void {
    const bucket = Math.floor(now / 100);
    if (bucket - this.bucketAt >= 10) this.buckets.fill(0);
    else for (let b = this.bucketAt + 1; b <= bucket; b++) this.buckets[b % 10] = 0;
    this.bucketAt = Math.max(this.bucketAt, bucket);
  }
}
