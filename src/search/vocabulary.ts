/**
 * The surface terms of an index (names and manufacturers) with the number of products using
 * each, for the query side: a prefix-letter stem is only searched when it is a real word of the
 * catalogue (or, for the word being typed, the start of one), and when few products have every
 * word of a query the most common word is the first one dropped. One sorted array and binary
 * search: small and fast.
 */
export class Vocabulary {
  private readonly terms: string[];
  private readonly counts: Uint32Array;

  /** @example new Vocabulary(new Map([["חלב", 120], ["במבה", 14]])).has("חלב") // → true */
  constructor(frequencies: Map<string, number>) {
    this.terms = [...frequencies.keys()].sort();
    this.counts = Uint32Array.from(this.terms, (t) => frequencies.get(t)!);
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

  /** Products whose name or manufacturer holds `term` (0 for unknown words). */
  frequency(term: string): number {
    const i = this.lowerBound(term);
    return this.terms[i] === term ? this.counts[i]! : 0;
  }
}
