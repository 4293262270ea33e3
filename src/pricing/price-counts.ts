/**
 * How many stores sell at each price, per group (a chain's stores of a scope), in flat typed
 * arrays: a group has a few distinct prices, so a linear scan beats a Map and allocates nothing.
 * mode() is modeOfCounts (rules.ts) over a group: the most common price, ties to the lower one.
 */
export class PriceCounts {
  private width = 16;
  private price: Float64Array;
  private count: Int32Array;
  private readonly size: Int32Array;

  constructor(private readonly groups: number) {
    this.price = new Float64Array(groups * this.width);
    this.count = new Int32Array(groups * this.width);
    this.size = new Int32Array(groups);
  }

  /** One more store of `group` at `price`. */
  add(group: number, price: number): void {
    const base = group * this.width;
    const n = this.size[group]!;
    for (let k = base; k < base + n; k++) {
      if (this.price[k] === price) {
        this.count[k]!++;
        return;
      }
    }
    if (n === this.width) return this.widen(), this.add(group, price);
    this.price[base + n] = price;
    this.count[base + n] = 1;
    this.size[group] = n + 1;
  }

  /** One store of `group` less at `price` (added before). */
  remove(group: number, price: number): void {
    const base = group * this.width;
    const last = base + this.size[group]! - 1;
    for (let k = base; k <= last; k++) {
      if (this.price[k] !== price) continue;
      if (--this.count[k]! === 0) {
        this.price[k] = this.price[last]!;
        this.count[k] = this.count[last]!;
        this.size[group]!--;
      }
      return;
    }
  }

  /** The group's most common price (ties → the lower), NaN when no store of it has one. */
  mode(group: number): number {
    const base = group * this.width;
    let best = NaN;
    let bestCount = 0;
    for (let k = base; k < base + this.size[group]!; k++) {
      const c = this.count[k]!;
      const v = this.price[k]!;
      if (c > bestCount || (c === bestCount && v < best)) {
        best = v;
        bestCount = c;
      }
    }
    return best;
  }

  /** Every group empty again. */
  clear(): void {
    this.size.fill(0);
  }

  private widen(): void {
    const width = this.width * 2;
    const price = new Float64Array(this.groups * width);
    const count = new Int32Array(this.groups * width);
    for (let g = 0; g < this.groups; g++) {
      price.set(this.price.subarray(g * this.width, g * this.width + this.size[g]!), g * width);
      count.set(this.count.subarray(g * this.width, g * this.width + this.size[g]!), g * width);
    }
    [this.width, this.price, this.count] = [width, price, count];
  }
}
