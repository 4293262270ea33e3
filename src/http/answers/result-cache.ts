/**
 * A small LRU of computed answers that depend only on the data version and on which promotions
 * are active. Entries are dropped when the data version changes, and each expires at the next
 * promotion start or end that could change it (`validUntil`), so a cached answer is always the
 * answer a fresh computation would give. Bounded by a total weight (e.g. price entries held).
 */
export class ResultCache<V> {
  /** In order of last use, oldest first (a Map iterates in insertion order). */
  private readonly entries = new Map<string, { value: V; validUntil: number; weight: number; stamp: number }>();
  /** Counts insertions: an entry's `stamp` is the count when it was last (re)inserted. */
  private stamp = 0;
  private cacheVersion = -1;
  private weight = 0;

  constructor(private readonly maxWeight: number) {}

  get(version: number, key: string, now: number): V | undefined {
    if (version !== this.cacheVersion) {
      this.reset(version);
      return undefined;
    }
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (now >= entry.validUntil) {
      this.remove(key);
      return undefined;
    }
    // Most recently used last: re-inserted — unless it is among the newer half already. Then at
    // least half the entries are older and go first, and its next hit once it is among those
    // moves it; a Map delete and set on every hit was most of a lookup's cost (a batch makes 100).
    if (this.stamp - entry.stamp > this.entries.size >>> 1) {
      this.entries.delete(key);
      entry.stamp = ++this.stamp;
      this.entries.set(key, entry);
    }
    return entry.value;
  }

  set(version: number, key: string, value: V, validUntil: number, weight: number): void {
    if (version !== this.cacheVersion) this.reset(version);
    if (weight > this.maxWeight) return;
    this.remove(key);
    this.entries.set(key, { value, validUntil, weight, stamp: ++this.stamp });
    this.weight += weight;
    for (const [oldest] of this.entries) {
      if (this.weight <= this.maxWeight) break;
      this.remove(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  /** The data version the entries belong to (-1 before the first). */
  get version(): number {
    return this.cacheVersion;
  }

  /** Starts holding entries of `version` (dropping others), as the first get or set would. */
  begin(version: number): void {
    if (version !== this.cacheVersion) this.reset(version);
  }

  /** An entry still valid at `now`, whatever its version, without marking it used. */
  peek(key: string, now: number): V | undefined {
    const entry = this.entries.get(key);
    return entry && now < entry.validUntil ? entry.value : undefined;
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.weight -= entry.weight;
  }

  private reset(version: number): void {
    this.entries.clear();
    this.weight = 0;
    this.cacheVersion = version;
  }
}
