/**
 * Barcode lookup for the search index: barcode keys (digits without leading zeros) by product,
 * with a hash map for exact lookups. Prefix lookups scan the list (about a millisecond at
 * 100,000 products, and only for digit-only queries): cheaper than keeping every barcode in
 * MiniSearch's radix tree, and nothing to sort during a rebuild.
 */
export class BarcodeIndex {
  private readonly keys: string[] = [];
  private readonly exact = new Map<string, number | number[]>();

  /** Adds the next product (dense position = number of products added before). */
  add(key: string): void {
    const doc = this.keys.length;
    this.keys.push(key);
    const known = this.exact.get(key);
    if (known === undefined) this.exact.set(key, doc);
    else if (typeof known === "number") this.exact.set(key, [known, doc]);
    else known.push(doc);
  }

  /**
   * Products whose barcode key equals `key`, then (with `prefix`) those whose key starts with
   * it, in catalogue order; at most `max`.
   *
   * @example index.add("7290000066318"); index.find("7290000066318", false) // → [0]
   */
  find(key: string, prefix: boolean, max = 1000): number[] {
    const known = this.exact.get(key);
    const out = known === undefined ? [] : typeof known === "number" ? [known] : [...known];
    if (!prefix) return out;
    const exact = new Set(out);
    for (let doc = 0; doc < this.keys.length && out.length < max; doc++) {
      if (this.keys[doc]!.startsWith(key) && !exact.has(doc)) out.push(doc);
    }
    return out;
  }
}
