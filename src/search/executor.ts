
/**
 * Query evaluation over MiniSearch's term index, rarest word first.
 *
 * MiniSearch's own `search` scores every posting of every query word before intersecting, so
 * `חלב תנובה` at 100,000 products costs ~1.3 µs × all postings of both words (~18 ms measured).
 * Here the word with the fewest postings is scored first and later words are only looked up for
 * the products still in the running (a hash lookup each), with BM25 scores and expansion weights
 * as MiniSearch computes them. MiniSearch still builds the index and expands words (exact, prefix
 * and fuzzy lookups in its radix tree).
 *
 * It reads MiniSearch internals (`_index`, `_fieldIds`, `_fieldLength`, `_avgFieldLength`,
 * `_documentCount`, `_documentIds`) of the pinned version 7.2.0; the constructor checks they are
 * there and shaped as expected, and test/search/executor.test.ts compares against MiniSearch's
 * own results.
 */

type Postings = Map<number, number>;
type TermData = Map<number, Postings>;

interface RadixIndex {
  get(term: string): TermData | undefined;
  atPrefix(prefix: string): Iterable<[string, TermData]>;
  fuzzyGet(term: string, maxDistance: number): Map<string, [TermData, number]>;
}

interface Internals {
  _index: RadixIndex;
  _fieldIds: Record<string, number>;
  _fieldLength: Map<number, number[]>;
  _avgFieldLength: number[];
  _documentCount: number;
  _documentIds: Map<number, unknown>;
}

/** One form of a query word to look up, with its weight (1 for the word as typed). */
export interface WordForm {
  term: string;
  weight: number;
  /** Also match longer terms starting with `term` (the word being typed). */
  prefix: boolean;
  /** Also match terms within this edit distance (0: exact only). */
  fuzzy: number;
  /**
   * Fuzzy expansions shorter than this many letters match only the name and manufacturer, not
   * stems and aliases (`בננה` ≈ `בנה`, the stem of `לבנה`, is two guesses in a row). Unset:
   * every field, as MiniSearch does.
   */
  fuzzySurfaceBelow?: number;
}

/** The products a query matched, unordered, with their scores. */
export interface Matches {
  docs: Int32Array;
  scores: Float64Array;
}

interface Expansion {
  field: number;
  postings: Postings;
  /** Expansion weight × field boost × inverse document frequency part of BM25. */
  weight: number;
}

// MiniSearch's BM25+ defaults and the weights of prefix and fuzzy expansions it would use.
const K = 1.2;
const B = 0.7;
const D = 0.5;

export class QueryExecutor {
  private readonly index: RadixIndex;
  private readonly fieldIds: number[];
  private readonly boosts: number[];
  private readonly fieldCount: number;
  private readonly lengths: Uint16Array;
  private readonly average: number[];
  private readonly total: number;
  private readonly score: Float64Array;
  private readonly mark: Uint32Array;
  private readonly hits: Uint8Array;
  private readonly surfaceFields: number[];
  private readonly isSurface: boolean[];
  private generation = 0;

  /**
   * @param engine a MiniSearch whose document ids are 0..n-1, added in that order
   * @param boosts field name → boost, for the fields to search
   */
  constructor(
    engine: object,
    boosts: Record<string, number>,
    private readonly weights: { prefix: number; fuzzy: number },
    /** Distinct terms per document and field (IndexWriter#fieldLengths); copied from the engine when absent. */
    lengths?: Uint16Array,
  ) {
    const internals = engine as unknown as Internals;
    const n = internals._documentCount;
    if (
      typeof internals._index?.get !== "function" ||
      typeof internals._index.atPrefix !== "function" ||
      typeof internals._index.fuzzyGet !== "function" ||
      !(internals._fieldLength instanceof Map) ||
      !(internals._documentIds instanceof Map) ||
      (n > 0 && internals._documentIds.get(n - 1) !== n - 1)
    ) {
      throw new Error("MiniSearch internals are not as expected (executor.ts is written for minisearch 7.2.0 with dense ids)");
    }
    this.index = internals._index;
    const fields = Object.keys(internals._fieldIds);
    this.fieldCount = fields.length;
    this.fieldIds = Object.keys(boosts).map((f) => internals._fieldIds[f]!);
    this.boosts = Object.values(boosts);
    this.average = internals._avgFieldLength.map((x) => x || 1);
    this.total = n;
    if (lengths && lengths.length === n * this.fieldCount) {
      this.lengths = lengths;
    } else {
      this.lengths = new Uint16Array(n * this.fieldCount);
      for (const [doc, counts] of internals._fieldLength) {
        for (let f = 0; f < this.fieldCount; f++) this.lengths[doc * this.fieldCount + f] = Math.min(counts[f] ?? 0, 65535);
      }
    }
    this.surfaceFields = ["name", "brand"].map((f) => internals._fieldIds[f]).filter((id): id is number => id !== undefined);
    this.isSurface = Array.from({ length: this.fieldCount }, (_, f) => this.surfaceFields.includes(f));
    this.score = new Float64Array(n);
    this.mark = new Uint32Array(n);
    this.hits = new Uint8Array(n);
  }

  /**
   * Products holding `term` as written (in the name or manufacturer; stems and other spellings
   * do not count): the catalogue's vocabulary is the term tree itself.
   */
  frequency(term: string): number {
    const data = this.index.get(term);
    if (!data) return 0;
    let n = 0;
    for (const field of this.surfaceFields) n += data.get(field)?.size ?? 0;
    return n;
  }

  /** True when `term` is a word of the catalogue's names or manufacturers. */
  has(term: string): boolean {
    return this.frequency(term) > 0;
  }

  /** True when `term` is a term of any field (stems, number keys, other names and aliases included). */
  indexed(term: string): boolean {
    const data = this.index.get(term);
    if (!data) return false;
    for (const field of this.fieldIds) if ((data.get(field)?.size ?? 0) > 0) return true;
    return false;
  }

  /** True when some word of the catalogue's names or manufacturers starts with `prefix`. */
  hasPrefix(prefix: string): boolean {
    for (const [, data] of this.index.atPrefix(prefix)) {
      for (const field of this.surfaceFields) if ((data.get(field)?.size ?? 0) > 0) return true;
    }
    return false;
  }

  /** The index entries of one word form: the term itself, its prefix and fuzzy expansions. */
  private expand(form: WordForm): Expansion[] {
    const found = new Map<string, [TermData, number, boolean]>(); // term → data, weight factor, surface fields only
    const exact = this.index.get(form.term);
    if (exact) found.set(form.term, [exact, 1, false]);
    if (form.prefix) {
      for (const [term, data] of this.index.atPrefix(form.term)) {
        const distance = term.length - form.term.length;
        if (distance > 0) found.set(term, [data, (this.weights.prefix * term.length) / (term.length + 0.3 * distance), false]);
      }
    }
    if (form.fuzzy > 0) {
      const surfaceBelow = form.fuzzySurfaceBelow ?? 0;
      for (const [term, [data, distance]] of this.index.fuzzyGet(form.term, form.fuzzy)) {
        // A typo'd word is not taken for a word of one or two letters (קטג is not קט).
        if (distance > 0 && term.length >= 3 && !found.has(term)) found.set(term, [data, (this.weights.fuzzy * term.length) / (term.length + distance), term.length < surfaceBelow]);
      }
    }
    const out: Expansion[] = [];
    for (const [data, factor, surfaceOnly] of found.values()) {
      this.fieldIds.forEach((field, i) => {
        if (surfaceOnly && !this.isSurface[field]) return;
        const postings = data.get(field);
        if (!postings || postings.size === 0) return;
        const n = postings.size;
        const idf = Math.log(1 + (this.total - n + 0.5) / (n + 0.5));
        out.push({ field, postings, weight: form.weight * factor * this.boosts[i]! * idf });
      });
    }
    return out;
  }

  private bm25(expansion: Expansion, doc: number, tf: number): number {
    const length = this.lengths[doc * this.fieldCount + expansion.field]!;
    return expansion.weight * (D + (tf * (K + 1)) / (tf + K * (1 - B + (B * length) / this.average[expansion.field]!)));
  }

  /**
   * Products matching every group (`AND`) or any (`OR`), where a group matches when any of its
   * forms does. Scores add up BM25 over the matched forms and fields; with `OR`, a product's
   * score is multiplied by the number of groups it matched. `boost` multiplies a product's score;
   * `filter` drops products before they are scored.
   *
   * @example executor.run([[{ term: "חלב", weight: 1, prefix: false, fuzzy: 0 }], [{ term: "תנובה", weight: 1, prefix: true, fuzzy: 0 }]], "AND", boost, null)
   */
  run(groups: WordForm[][], mode: "AND" | "OR", boost: Float32Array, filter: ((doc: number) => boolean) | null): Matches {
    // Expanding a word costs radix-tree walks (fuzzy ones are dear): with AND, the first word
    // nothing matches ends the query before the next words are expanded.
    const expanded: { list: Expansion[]; cost: number }[] = [];
    for (const forms of groups) {
      const list = forms.flatMap((f) => this.expand(f));
      const cost = list.reduce((s, e) => s + e.postings.size, 0);
      if (mode === "AND" && cost === 0) return { docs: new Int32Array(0), scores: new Float64Array(0) };
      expanded.push({ list, cost });
    }
    if (mode === "AND") expanded.sort((a, b) => a.cost - b.cost);
    const { score, mark, hits } = this;
    if (this.generation > 0xfffffff0 - groups.length) {
      mark.fill(0);
      this.generation = 0;
    }
    let candidates: number[] = [];

    // The cheapest group (with OR, every group) opens the candidate set. A product seen in this
    // query has a mark ≥ base; seen in the current group, the group's own mark.
    const base = this.generation + 1;
    for (const group of mode === "AND" ? expanded.slice(0, 1) : expanded) {
      const gen = ++this.generation;
      for (const e of group.list) {
        for (const [doc, tf] of e.postings) {
          const seen = mark[doc]!;
          if (seen === gen) {
            score[doc]! += this.bm25(e, doc, tf);
          } else if (seen >= base) {
            mark[doc] = gen;
            hits[doc]!++;
            score[doc]! += this.bm25(e, doc, tf);
          } else if (!filter || filter(doc)) {
            mark[doc] = gen;
            hits[doc] = 1;
            score[doc] = this.bm25(e, doc, tf);
            candidates.push(doc);
          }
        }
      }
    }

    // AND: each further group keeps the candidates it matches, looked up or scanned, whichever is cheaper.
    for (const group of mode === "AND" ? expanded.slice(1) : []) {
      const previous = this.generation;
      const gen = ++this.generation;
      if (group.cost < candidates.length) {
        for (const e of group.list) {
          for (const [doc, tf] of e.postings) {
            if (mark[doc] === previous || mark[doc] === gen) {
              mark[doc] = gen;
              score[doc]! += this.bm25(e, doc, tf);
            }
          }
        }
      } else {
        for (const doc of candidates) {
          for (const e of group.list) {
            const tf = e.postings.get(doc);
            if (tf === undefined) continue;
            mark[doc] = gen;
            score[doc]! += this.bm25(e, doc, tf);
          }
        }
      }
      candidates = candidates.filter((doc) => mark[doc] === gen);
    }

    const docs = Int32Array.from(candidates);
    const scores = new Float64Array(docs.length);
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i]!;
      scores[i] = score[doc]! * boost[doc]! * (mode === "OR" ? hits[doc]! : 1);
    }
    return { docs, scores };
  }
}

/**
 * Orders matches by score, highest first (ties: catalogue order).
 *
 * @example ranked({ docs: Int32Array.of(4, 9), scores: Float64Array.of(1, 2) }) // → Int32Array [9, 4]
 */
export function ranked(matches: Matches): Int32Array {
  const order = new Int32Array(matches.docs.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  order.sort((a, b) => matches.scores[b]! - matches.scores[a]! || matches.docs[a]! - matches.docs[b]!);
  for (let i = 0; i < order.length; i++) order[i] = matches.docs[order[i]!]!;
  return order;
}
