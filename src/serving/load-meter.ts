/**
 * Requests per second an app is answering, over a sliding second in 100 ms buckets: background
 * work (a search index rebuild) paces itself only while the server is busy, and runs flat out
 * when it is not (start-up, a quiet night). One per process; the access layer counts every API request.
 */
export class LoadMeter {
  private readonly buckets = new Uint32Array(10);
  private bucketAt = 0;

  constructor(private readonly clock: () => number = () => performance.now()) {}

  /** Counts one request. */
  note(): void {
    this.advance();
    this.buckets[this.bucketAt % 10]!++;
  }

  /** Requests over the last second. */
  perSecond(): number {
    this.advance();
    let sum = 0;
    for (const n of this.buckets) sum += n;
    return sum;
  }

  private advance(): void {
    const bucket = Math.floor(this.clock() / 100);
    if (bucket - this.bucketAt >= 10) this.buckets.fill(0);
    else for (let b = this.bucketAt + 1; b <= bucket; b++) this.buckets[b % 10] = 0;
    this.bucketAt = Math.max(this.bucketAt, bucket);
  }
}
