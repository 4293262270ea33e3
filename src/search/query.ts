import { canonicalToken, foldFinals, isHebrew, isUnit, nameKey, parseQuantities, prefixStems, searchTerm, tokenize, type Quantity } from "./hebrew.ts";
/** What the planner asks of the catalogue's words (QueryExecutor answers from the term tree). */
export interface Vocabulary {
  has(term: string): boolean;
  hasPrefix(prefix: string): boolean;
  frequency(term: string): number;
}

/** One word of a query with the forms it may take in the index. */
export interface TermGroup {
  /** The word as typed, canonical (finals folded, quotes dropped). */
  term: string;
  /** Prefix-letter stems that are words of the catalogue (והחלב → חלב), searched beside `term`. */
  stems: string[];
  /**
   * Tried only in the typo pass: further stems of ≥5 letters (בשוקולאד → שוקולאד ≈ שוקולד) and
   * catalogue words one swap of neighbouring letters away (יוגרוט → יוגורט), which edit
   * distance counts as two edits.
   */
  typoStems: string[];
  /** The word being typed (the last one, no space after it): matched as a prefix too. */
  prefix: boolean;
  /**
   * A word of the catalogue (or, being typed, the start of one), directly or after its prefix
   * letters. Only unknown words are tried with typos: a known word is taken as meant.
   */
  known: boolean;
}

export type QueryPlan =
  | { kind: "barcode"; barcodeKey: string }
  | { kind: "text"; groups: TermGroup[]; quantities: Quantity[]; nameHash: number }
  | { kind: "empty" };

/**
 * 32-bit FNV-1a of a string: exact-name keys are kept as hashes, not strings.
 *
 * @example hashString("חלב") === hashString("חלב") // → true
 */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * The words made by swapping two neighbouring letters.
 *
 * @example transpositions("יוגרוט") // → ["ויגרוט", "יגורוט", "יורגוט", "יוגורט", "יוגרטו"]
 */
export function transpositions(term: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < term.length; i++) {
    if (term[i] === term[i + 1]) continue;
    out.push(term.slice(0, i) + term[i + 1] + term[i] + term.slice(i + 2));
  }
  return out;
}

/**
 * Turns a query into what the index searches: a barcode (digits only; leading zeros are not
 * significant) or term groups, package sizes (kept out of the full-text match; they rank
 * products of that size first) and the hash of the exact-name key.
 *
 * Rules: a trailing one-letter word is dropped (still being typed); a word repeated is searched
 * once; the last word is a prefix while it is being typed (nothing after it: no space, no size,
 * no one-letter word); a short unit-like last word without quotes (`גר`, `מל`)
 * is taken as a word being typed (גרנולה), not as a unit.
 *
 * @example planQuery("והחלב 1 ליטר", vocab) // → { kind: "text", groups: [{ term: "והחלב", stems: ["חלב"], … }], quantities: [{ amount: 1000, unit: "ml", … }], … }
 * @example planQuery("007290000066318", vocab) // → { kind: "barcode", barcodeKey: "7290000066318" }
 */
export function planQuery(q: string, vocab: Vocabulary): QueryPlan {
  const trimmed = q.trim();
  if (/^[\d\s-]+$/.test(trimmed) && /\d/.test(trimmed)) {
    return { kind: "barcode", barcodeKey: trimmed.replace(/[\s-]/g, "").replace(/^0+(?=\d)/, "") };
  }
  const { quantities, rest } = parseQuantities(q);
  // Being typed: the query's last piece, no space after it (not a word followed by a size).
  const lastPiece = /\s$/.test(q) ? undefined : tokenize(q).at(-1);
  const typing = lastPiece !== undefined;
  const tokens = tokenize(rest);
  const words: { term: string; raw: string }[] = [];
  tokens.forEach((raw, i) => {
    const term = searchTerm(raw);
    if (term !== null) words.push({ term, raw });
    else if (i === tokens.length - 1 && typing && raw.length >= 2 && !/^\d/.test(tokens[i - 1] ?? "") && !/["']/.test(raw) && isHebrew(foldFinals(raw)) && isUnit(canonicalToken(raw))) {
      words.push({ term: foldFinals(raw), raw }); // גר → גרנולה, not grams
    }
  });
  if (words.length === 0) return { kind: "empty" };
  const groups = words.map(({ term }, i): TermGroup => {
    const last = i === words.length - 1;
    const prefix = last && words[i]!.raw === lastPiece && term.length >= 2 && !/^\d/.test(term);
    const candidates = prefixStems(term, 4);
    const stems = candidates.filter((s) => vocab.has(s) || (prefix && vocab.hasPrefix(s)));
    const typoStems = candidates.filter((s) => !stems.includes(s) && s.length >= 5);
    if (term.length >= 5) for (const v of transpositions(term)) if (vocab.has(v) && !typoStems.includes(v)) typoStems.push(v);
    const known = vocab.has(term) || stems.length > 0 || (prefix && vocab.hasPrefix(term));
    return { term, stems, typoStems, prefix, known };
  });
  // A word typed twice asks nothing more (and would be expanded twice).
  const distinct = groups.filter((g, i) => groups.findIndex((o) => o.term === g.term && o.prefix === g.prefix) === i);
  return { kind: "text", groups: distinct, quantities, nameHash: hashString(nameKey(q)) };
}
