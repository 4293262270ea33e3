import { startsAlias } from "./aliases.ts";
import { expansion } from "./abbreviations.ts";
import { prefixStems } from "./hebrew.ts";
import { numberKey, numberVariant } from "./morphology.ts";
import type { IndexWriter, TermSlot } from "./writer.ts";

/** What the index builder derives from one search term of a name (see build.ts `prepare`). */
export interface TermFacts {
  readonly slot: TermSlot;
  /**
   * Its low-boost forms (abbreviation expansions, number key, prefix stems and their number
   * keys), flattened as pairs: the form a document's own terms are checked for, then the form
   * added to the document's `nameAlt` when they lack it.
   */
  readonly alt: readonly TermSlot[];
  /** Some spelling in data/search-aliases.json starts with it. */
  readonly aliasStart: boolean;
  /** Its number key as a head noun (an abbreviated head stands for its first word: תפוחי → תפוח). */
  readonly head: string;
  /** The head's id in the build's table, once asked (-1 before). */
  headId: number;
}

/**
 * The terms of one index build, each analysed once: grocery names repeat their words, so a
 * rebuild of 100,000 products meets a few tens of thousands of distinct ones. Lives for one
 * build (its slots belong to that build's IndexWriter).
 *
 * @example const words = new Vocabulary(writer); words.facts("והחלב").alt.map((s) => s.term) // → ["החלב", "החלב", "חלב", "חלב"]
 */
export class Vocabulary {
  private readonly known = new Map<string, TermFacts>();

  constructor(private readonly writer: Pick<IndexWriter<never>, "slot">) {}

  /** The slot of any term (for terms that need no facts: aliases, other names' forms). */
  slot(term: string): TermSlot {
    return this.writer.slot(term);
  }

  facts(term: string): TermFacts {
    let facts = this.known.get(term);
    if (!facts) this.known.set(term, (facts = this.analyse(term)));
    return facts;
  }

  private analyse(term: string): TermFacts {
    const alt: TermSlot[] = [];
    const pair = (checked: string, added: string) => alt.push(this.writer.slot(checked), this.writer.slot(added));
    // The order of build.ts before this cache, kept: it decides the order of nameAlt's terms.
    for (const word of expansion(term) ?? []) pair(word, numberVariant(word) ?? word);
    const variant = numberVariant(term);
    if (variant) pair(variant, variant);
    for (const s of prefixStems(term)) {
      pair(s, s);
      const v = numberVariant(s);
      if (v) pair(v, v);
    }
    return {
      slot: this.writer.slot(term),
      alt,
      aliasStart: startsAlias(term),
      head: numberKey(expansion(term)?.[0] ?? term),
      headId: -1,
    };
  }
}
