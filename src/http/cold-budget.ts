/**
 * How much of the serving thread recent cold computations took (answers not in a cache): over a
 * sliding second, in 100 ms buckets. When a new data version empties the answer caches of a busy
 * server, this is what decides between computing an answer now and serving the previous data
 * version's answer while it is recomputed in the background (see answer-cache.ts).
 */
export class ColdBudget {
  private readonly buckets = new Float64Array(10);
  private bucketAt = 0;

  /**
   * @param msPerSecond the thread time per second cold computations may take before stale
   *   answers are preferred (default 250: a quarter of the thread)
   */
  constructor(
    private readonly msPerSecond = 250,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** Records `ms` of cold computation just done. */
  spend(ms: number): void {
    this.advance();
    this.buckets[this.bucketAt % 10]! += ms;
  }

  /** Thread time spent on cold computations over the last second, ms. */
  spent(): number {
    this.advance();
    let sum = 0;
    for (const ms of this.buckets) sum += ms;
    return sum;
  }

  /** True while recent cold work is within the budget. */
  available(): boolean {
    return this.spent() < this.msPerSecond;
  }

  private advance(): void {
    const bucket = Math.floor(this.clock() / 100);
    if (bucket - this.bucketAt >= 10) this.buckets.fill(0);
    else for (let b = this.bucketAt + 1; b <= bucket; b++) this.buckets[b % 10] = 0;
    this.bucketAt = Math.max(this.bucketAt, bucket);
  }
}

const budgets = new WeakMap<object, ColdBudget>();

/** An app's budget (keyed by its deps), shared by its answer caches and background revalidation. */
export function coldBudgetOf(app: object): ColdBudget {
  let budget = budgets.get(app);
  if (!budget) budgets.set(app, (budget = new ColdBudget()));
  return budget;
}
