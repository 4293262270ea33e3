import type MiniSearch from "minisearch";
import { QueryExecutor, ranked, type Matches, type WordForm } from "./executor.ts";
import type { Quantity } from "./hebrew.ts";
import { planQuery, type QueryPlan, type TermGroup } from "./query.ts";
import type { BarcodeIndex } from "./barcodes.ts";

/** What MiniSearch holds per product: pre-analysed terms joined by spaces. */
export interface IndexedDoc {
  /** Dense position of the product in the arrays of SearchIndex. */
  id: number;
  name: string;
  brand: string;
  nameAlt: string;
}

/** Field boosts: the name as written first, then the manufacturer, then stems and aliases. */
export const BOOST = { name: 3, brand: 2, nameAlt: 1 };
/** Query-side prefix-letter stems weigh half as much as the word as typed. */
const STEM_WEIGHT = 0.5;
/** Prefix and fuzzy expansions weigh less than the word itself (as MiniSearch weighs them). */
const WEIGHTS = { fuzzy: 0.3, prefix: 0.6 };
/**
 * Edits allowed in a word the catalogue does not know: one from `from` letters (3 for the word
 * as typed: Hebrew is written without most vowels, so 3 letters is a whole word, קטג → קוטג,
 * במבא → במבה; 5 for its prefix-letter stems, already a guess), two from 8 (`most`: 2), never
 * in digits. A swap of neighbouring letters is one edit (query.ts tries the swapped words).
 */
const fuzzyFor = (term: string, most = 2, from = 3) => (/\d/.test(term) ? 0 : term.length >= 8 ? most : term.length >= from ? 1 : 0);
/** A typo is not matched to a stem or alias shorter than this (in names and manufacturers it is). */
const FUZZY_STEM_MIN = 4;
/** Words in more than this share of the products are left out of the some-of-the-words pass. */
const COMMON_SHARE = 0.02;
/** Fewer hits than this after the exact+prefix pass → the typo pass runs. */
const TYPO_PASS_BELOW = 5;
/** Rankings kept per index (query + filters → ordered ids), for the next pages of a query. */
export const CACHE_ENTRIES = 128;
/**
 * Ranking tiers, most significant first: the query is a name the product is published under
 * (64); the product's name starts with a word of the query as meant — its head noun: `חלב` milk
 * before milk chocolate and coffee whitener, `סוכר` sugar before סוכרזית (16); the size the query
 * names (4 per point of sizeScore); the name starts with the word being typed (2); a generic
 * product (loose produce grouped across chains, 1).
 */
const TIER = { exact: 64, head: 16, size: 4, headPrefix: 2, generic: 1 };
const TIERS = 128;

export const SIZE_UNIT_CODES: Record<string, number> = { g: 1, ml: 2, unit: 3 };

export interface SearchRequest {
  q: string;
  /** `chains.id`: only products sold in a store of this chain. */
  chainId?: number;
  /** Category slug. */
  category?: string;
  limit: number;
  offset: number;
}

export interface SearchPage {
  /** `products.id`, most relevant first. */
  ids: number[];
  total: number;
  /** The data version the index was built from (cursors are bound to it). */
  version: number;
}

/** Per-product arrays, indexed by the dense position (IndexedDoc.id). */
export interface ProductTable {
  productIds: Int32Array;
  categoryCodes: Uint8Array;
  categories: string[];
  /** `words` 32-bit words per product; bit `chainBit.get(chains.id)` set = sold by that chain. */
  chainWords: Uint32Array;
  words: number;
  chainBit: Map<number, number>;
  /** Package size of one item (g, ml or units) and its unit code (0 = unknown). */
  sizeAmounts: Float64Array;
  sizeUnits: Uint8Array;
  /** Items in the pack (0 = not stated). */
  packs: Uint16Array;
  nameHashes: Uint32Array;
  /** 1 for a generic product (loose produce grouped across chains): ranked before the chains' own items. */
  generic: Uint8Array;
  /** Exact-name hashes of the other names chains publish for a product → its dense position(s). */
  otherNames: Map<number, number | number[]>;
  /**
   * The number key (morphology.ts) of the first word of each name (its head noun: `חלב` in
   * `חלב תנובה 3%`, `שוקולד` in `שוקולד חלב`, `תפוח` in `תפוחים`) as an id into `headTerms` (-1: none).
   */
  heads: Int32Array;
  /** The distinct head words, sorted. */
  headTerms: string[];
  /** 1 + a small bonus by the number of chains and of stores selling the product (ties go to the widely sold). */
  popularity: Float32Array;
}

/**
 * One built, immutable product index: MiniSearch's term index over names, manufacturers, stems
 * and aliases (queried by QueryExecutor), a barcode lookup, and per-product arrays for filters
 * and ranking. ProductSearch swaps whole instances, so a search never sees a half-built index.
 */
export class SearchIndex {
  private readonly cache = new Map<string, Int32Array>();
  private readonly executor: QueryExecutor;

  constructor(
    readonly version: number,
    engine: MiniSearch<IndexedDoc>,
    private readonly table: ProductTable,
    private readonly barcodes: BarcodeIndex,
    fieldLengths: Uint16Array,
    private readonly cacheEntries = CACHE_ENTRIES,
  ) {
    this.executor = new QueryExecutor(engine, BOOST, WEIGHTS, fieldLengths);
  }

  /** Dense position of a product (product ids are read in increasing order), or -1. */
  private denseOf(productId: number): number {
    const ids = this.table.productIds;
    let lo = 0;
    let hi = ids.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const id = ids[mid]!;
      if (id === productId) return mid;
      if (id < productId) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  get size(): number {
    return this.table.productIds.length;
  }

  /** The category slug the index holds for a product (the stored one, or the classifier's). */
  categoryOf(productId: number): string | null {
    const dense = this.denseOf(productId);
    return dense < 0 ? null : this.table.categories[this.table.categoryCodes[dense]!]!;
  }

  /** A page of product ids, relevance-ordered. Rankings are cached per query and filters. */
  search(request: SearchRequest): SearchPage {
    const key = `${request.q}\u0000${request.chainId ?? ""}\u0000${request.category ?? ""}`;
    let order = this.cache.get(key);
    if (order) {
      this.cache.delete(key); // refresh its place in the LRU order
    } else {
      order = this.rank(planQuery(request.q, this.executor), this.filterFor(request));
      if (this.cache.size >= this.cacheEntries) this.cache.delete(this.cache.keys().next().value!);
    }
    if (this.cacheEntries > 0) this.cache.set(key, order);
    const page = order.subarray(request.offset, request.offset + request.limit);
    return { ids: Array.from(page, (dense) => this.table.productIds[dense]!), total: order.length, version: this.version };
  }

  private filterFor(request: SearchRequest): ((dense: number) => boolean) | null {
    const { table } = this;
    const tests: ((dense: number) => boolean)[] = [];
    if (request.category !== undefined) {
      const code = table.categories.indexOf(request.category);
      tests.push((dense) => table.categoryCodes[dense] === code);
    }
    if (request.chainId !== undefined) {
      const bit = table.chainBit.get(request.chainId);
      if (bit === undefined) return () => false;
      const word = bit >>> 5;
      const mask = 1 << (bit & 31);
      tests.push((dense) => (table.chainWords[dense * table.words + word]! & mask) !== 0);
    }
    if (tests.length === 0) return null;
    if (tests.length === 1) return tests[0]!;
    return (dense) => tests.every((t) => t(dense));
  }

  private rank(plan: QueryPlan, filter: ((dense: number) => boolean) | null): Int32Array {
    if (plan.kind === "empty") return new Int32Array(0);
    if (plan.kind === "barcode") {
      const found = this.barcodes.find(plan.barcodeKey, plan.barcodeKey.length >= 5);
      return Int32Array.from(filter ? found.filter(filter) : found);
    }
    const run = (groups: TermGroup[], edits: number, mode: "AND" | "OR") =>
      ranked(this.executor.run(groups.map((g) => forms(g, edits)), mode, this.table.popularity, filter));
    let results = run(plan.groups, 0, "AND");
    const typoPossible = plan.groups.some((g) => !g.known && (fuzzyFor(g.term) > 0 || g.typoStems.length > 0));
    // One edit first; two (long words only) when one finds too little: a two-edit search of the
    // term tree costs ten times more. Typo matches get no head tier (see headLevels).
    let exactPass = true;
    if (results.length < TYPO_PASS_BELOW && typoPossible) {
      results = run(plan.groups, 1, "AND");
      exactPass = false;
    }
    if (results.length < TYPO_PASS_BELOW && plan.groups.some((g) => !g.known && fuzzyFor(g.term) === 2)) results = run(plan.groups, 2, "AND");
    const heads = this.headLevels(plan.groups);
    if (results.length < TYPO_PASS_BELOW && plan.groups.length > 1) {
      // Few products have every word: those first, then products with some of the words,
      // leaving out words so common that they say little and cost most.
      const all = new Set(results);
      const tail = run(this.informative(plan.groups), 1, "OR").filter((dense) => !all.has(dense));
      const out = new Int32Array(results.length + tail.length);
      out.set(this.tiered(results, plan, exactPass ? heads : null));
      out.set(this.tiered(tail, plan, null), results.length);
      return out;
    }
    return this.tiered(results, plan, exactPass ? heads : null);
  }

  /**
   * The head words a query names: [whole, prefix] lists of [from, to) ranges of head ids. Whole:
   * a head whose number key is one of a word's keys (as typed, its stems, its other number; an
   * English word's Hebrew). Prefix: a head starting with the word being typed.
   */
  private headLevels(groups: TermGroup[]): { whole: number[]; prefix: number[] } {
    const whole: number[] = [];
    const prefix: number[] = [];
    for (const g of groups) {
      for (const key of g.headKeys) {
        const from = this.headsFrom(key);
        if (this.table.headTerms[from] === key) whole.push(from, from + 1);
      }
      if (g.prefix) {
        const from = this.headsFrom(g.term);
        const to = this.headsFrom(g.term + "\uffff");
        if (to > from) prefix.push(from, to);
      }
    }
    return { whole, prefix };
  }

  /** 2: the product's head is a word of the query; 1: it starts with the word being typed; 0. */
  private headLevel(dense: number, heads: { whole: number[]; prefix: number[] }): number {
    const head = this.table.heads[dense]!;
    if (head < 0) return 0;
    for (let r = 0; r < heads.whole.length; r += 2) if (head >= heads.whole[r]! && head < heads.whole[r + 1]!) return 2;
    for (let r = 0; r < heads.prefix.length; r += 2) if (head >= heads.prefix[r]! && head < heads.prefix[r + 1]!) return 1;
    return 0;
  }

  /** The first head id whose word is not less than `term` (binary search over the sorted head words). */
  private headsFrom(term: string): number {
    const words = this.table.headTerms;
    let lo = 0;
    let hi = words.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (words[mid]! < term) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * The words worth an OR query: those held by at most 2 % of the products (unknown and
   * half-typed words count as rare); the rarest word when every word is common.
   */
  private informative(groups: TermGroup[]): TermGroup[] {
    const limit = Math.max(50, this.size * COMMON_SHARE);
    const frequency = (g: TermGroup) => (g.known ? Math.max(this.executor.frequency(g.term), ...g.stems.map((s) => this.executor.frequency(s))) : 0);
    const counted = groups.map((g) => ({ g, n: frequency(g) }));
    const rare = counted.filter((c) => c.n <= limit).map((c) => c.g);
    return rare.length > 0 ? rare : [counted.reduce((a, b) => (b.n < a.n ? b : a)).g];
  }

  /**
   * Relevance order, then stable tiers (see TIER): a name the product is published under, the
   * product the query's words name (head noun), the size the query names (`חלב 1 ליטר`; same
   * pack count before another pack of that size), a head starting with the word being typed,
   * generic products (loose produce grouped across chains).
   */
  private tiered(results: Int32Array, plan: { nameHash: number; quantities: Quantity[]; numbers: number[] }, heads: { whole: number[]; prefix: number[] } | null): Int32Array {
    const { table } = this;
    const { nameHash, quantities, numbers } = plan;
    const tiers = new Uint8Array(results.length);
    const counts = new Array<number>(TIERS).fill(0);
    const other = table.otherNames.get(nameHash);
    const exactOther = (dense: number) => other !== undefined && (typeof other === "number" ? other === dense : other.includes(dense));
    results.forEach((dense, i) => {
      const head = heads ? this.headLevel(dense, heads) : 0;
      const tier =
        (table.nameHashes[dense] === nameHash || exactOther(dense) ? TIER.exact : 0) +
        (head === 2 ? TIER.head : head === 1 ? TIER.headPrefix : 0) +
        (quantities.length > 0 ? TIER.size * this.sizeScore(dense, quantities) : numbers.length > 0 ? TIER.size * this.numberScore(dense, numbers) : 0) +
        (table.generic[dense] ? TIER.generic : 0);
      tiers[i] = tier;
      counts[tier]!++;
    });
    if (counts[0] === results.length) return results;
    const out = new Int32Array(results.length);
    const start = new Array<number>(TIERS).fill(0);
    for (let tier = TIERS - 2; tier >= 0; tier--) start[tier] = start[tier + 1]! + counts[tier + 1]!;
    results.forEach((dense, i) => (out[start[tiers[i]!]!++] = dense));
    return out;
  }

  /**
   * 1 when a number the query gives without a unit is the product's size in its unit (`200` →
   * 200 g), in litres or kilograms (`1.5` → 1,500 ml), or its pack count or unit count (`12`
   * eggs, `4` yogurts); else 0.
   */
  private numberScore(dense: number, numbers: number[]): number {
    const unit = this.table.sizeUnits[dense];
    const amount = this.table.sizeAmounts[dense]!;
    const pack = this.table.packs[dense]!;
    const close = (a: number, b: number) => Math.abs(a - b) <= b * 0.01;
    for (const n of numbers) {
      if (pack > 1 && n === pack) return 1;
      if (!unit) continue;
      if (close(n, amount) || (unit !== SIZE_UNIT_CODES.unit && n < 10 && close(n * 1000, amount))) return 1;
    }
    return 0;
  }

  /** 2: the size and pack the query names; 1: that size per item or in total; 0: another size. */
  private sizeScore(dense: number, quantities: Quantity[]): number {
    const unit = this.table.sizeUnits[dense];
    if (!unit) return 0;
    const amount = this.table.sizeAmounts[dense]!;
    const pack = this.table.packs[dense] || 1;
    const close = (a: number, b: number) => Math.abs(a - b) <= b * 0.01;
    let best = 0;
    for (const q of quantities) {
      if (SIZE_UNIT_CODES[q.unit] !== unit) continue;
      const item = close(q.amount, amount);
      if (item && (q.pack ?? 1) === pack) return 2;
      if (item || close(q.amount * (q.pack ?? 1), amount * pack)) best = 1;
    }
    return best;
  }
}

/**
 * The forms of one query word: as typed (and as a prefix when being typed), and its
 * prefix-letter stems at a lower weight; with `edits` > 0, words the catalogue does not know
 * are also matched within that many edits (fewer for short words), and their further stems
 * are tried.
 */
function forms(g: TermGroup, edits: number): WordForm[] {
  const fuzzy = edits > 0 && !g.known;
  const out: WordForm[] = [{ term: g.term, weight: 1, prefix: g.prefix && g.term.length >= 2, fuzzy: fuzzy ? fuzzyFor(g.term, edits) : 0, fuzzySurfaceBelow: FUZZY_STEM_MIN }];
  for (const stem of fuzzy ? [...g.stems, ...g.typoStems] : g.stems) {
    out.push({ term: stem, weight: STEM_WEIGHT, prefix: g.prefix, fuzzy: fuzzy ? fuzzyFor(stem, edits, 5) : 0, fuzzySurfaceBelow: FUZZY_STEM_MIN });
  }
  for (const alt of g.alts) if (alt.term !== g.term) out.push({ term: alt.term, weight: alt.weight, prefix: false, fuzzy: 0 });
  return out;
}
