/**
 * The sorted set of surface terms of an index (names and manufacturers), for the query side:
 * a prefix-letter stem is only searched when it is a real word of the catalogue (or, for the
 * word being typed, the start of one). Binary search over one sorted array: small and fast.
 */
export class Vocabulary {
  private readonly terms: string[];

  /** @example new Vocabulary(new Set(["חלב", "במבה"])).has("חלב") // → true */
  constructor(terms: Iterable<string>) {
    this.terms = [...new Set(terms)].sort();
  }

  get size(): number {
    return this.terms.length;
  }

  private lowerBound(text: string): number {
    let lo = 0;
    let hi = this.terms.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.terms[mid]! < text) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** True when `term` is a word of the catalogue. */
  has(term: string): boolean {
    return this.terms[this.lowerBound(term)] === term;
  }

  /** True when some word of the catalogue starts with `prefix`. */
  hasPrefix(prefix: string): boolean {
    return this.terms[this.lowerBound(prefix)]?.startsWith(prefix) ?? false;
  }
}
