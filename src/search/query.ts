import { withoutLeadingZeros } from "../identity/product-key.ts";
import { expansion } from "./abbreviations.ts";
import { translations } from "./english.ts";
import { canonicalToken, foldFinals, isHebrew, isUnit, nameKey, parseQuantities, prefixStems, searchTerm, tokenize, type Quantity } from "./hebrew.ts";
import { numberKey, numberVariant } from "./morphology.ts";

/** What the planner asks of the catalogue's words (QueryExecutor answers from the term tree). */
export interface Vocabulary {
  /** A word of the catalogue's names or manufacturers. */
  has(term: string): boolean;
  hasPrefix(prefix: string): boolean;
  frequency(term: string): number;
  /** A term of any field, number keys and other names included (default: `has`). */
  indexed?(term: string): boolean;
}

/** Weight of a word's other grammatical number (תפוחים → תפוח): nearly the word itself. */
const NUMBER_WEIGHT = 0.9;
/** Weight of a stem's other number (בתפוחים → תפוח), and of the Latin words an English phrase was translated from. */
const SECONDARY_WEIGHT = 0.5;

/** A whole word searched beside a query word, with its weight. */
export interface Alternative {
  term: string;
  weight: number;
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
  /**
   * Other whole words meaning the same: its other grammatical number (the number key, see
   * morphology.ts) and its stems' ones; for a word translated from English, the Latin words.
   */
  alts: Alternative[];
  /** Number keys of the word as meant (itself, its stems, its other number): a product whose name starts with one is named by it. */
  headKeys: string[];
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
  | { kind: "text"; groups: TermGroup[]; quantities: Quantity[]; numbers: number[]; nameHash: number }
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
    return { kind: "barcode", barcodeKey: withoutLeadingZeros(trimmed.replace(/[\s-]/g, "")) };
  }
  const { quantities, rest } = parseQuantities(q);
  // Being typed: the query's last piece, no space after it (not a word followed by a size).
  const lastPiece = /\s$/.test(q) ? undefined : tokenize(q).at(-1);
  const typing = lastPiece !== undefined;
  const tokens = tokenize(rest);
  // Numbers without a unit (`קוקה קולה 1.5`, `ביצים 12`): a size, count or pack the product may have.
  const numbers = tokens.filter((t) => /^\d+(?:\.\d+)?$/.test(t)).map(Number).filter((n) => n > 0);
  const words: { term: string; raw: string }[] = [];
  tokens.forEach((raw, i) => {
    const term = searchTerm(raw);
    if (term !== null) words.push({ term, raw });
    else if (i === tokens.length - 1 && typing && raw.length >= 2 && !/^\d/.test(tokens[i - 1] ?? "") && !/["']/.test(raw) && isHebrew(foldFinals(raw)) && isUnit(canonicalToken(raw))) {
      words.push({ term: foldFinals(raw), raw }); // גר → גרנולה, not grams
    }
  });
  if (words.length === 0) return { kind: "empty" };
  const indexed = (t: string) => (vocab.indexed ? vocab.indexed(t) : vocab.has(t));
  // English phrases become their Hebrew words; the Latin words stay beside them at a lower weight.
  const meant: { term: string; raw: string | null; latin: string[] }[] = [];
  const found = translations(words.map((w) => w.term));
  let next = 0;
  for (const t of found) {
    for (; next < t.at; next++) meant.push({ ...words[next]!, latin: [] });
    const latin = words.slice(t.at, t.at + t.length).map((w) => w.term);
    for (const h of t.hebrew) meant.push({ term: h, raw: null, latin });
    next = t.at + t.length;
  }
  for (; next < words.length; next++) meant.push({ ...words[next]!, latin: [] });
  const groups = meant.map(({ term, raw, latin }, i): TermGroup => {
    const last = i === meant.length - 1;
    const prefix = last && raw !== null && raw === lastPiece && term.length >= 2 && !/^\d/.test(term);
    const candidates = prefixStems(term, 4);
    const stems = candidates.filter((s) => vocab.has(s) || (prefix && vocab.hasPrefix(s)));
    const typoStems = candidates.filter((s) => !stems.includes(s) && s.length >= 5);
    if (term.length >= 3) for (const v of transpositions(term)) if (vocab.has(v) && !typoStems.includes(v)) typoStems.push(v);
    const alts: Alternative[] = latin.map((l) => ({ term: l, weight: SECONDARY_WEIGHT }));
    const own = numberVariant(term);
    if (own && indexed(own)) alts.push({ term: own, weight: NUMBER_WEIGHT });
    const long = expansion(term); // פח → פחית
    if (long?.length === 1 && indexed(long[0]!)) alts.push({ term: long[0]!, weight: NUMBER_WEIGHT });
    for (const s of candidates) {
      const v = numberVariant(s);
      if (v && !alts.some((a) => a.term === v) && indexed(v)) alts.push({ term: v, weight: SECONDARY_WEIGHT });
    }
    const headKeys = [...new Set([term, ...stems, ...alts.filter((a) => a.weight >= SECONDARY_WEIGHT && !latin.includes(a.term)).map((a) => a.term)].map(numberKey))];
    const known = vocab.has(term) || stems.length > 0 || alts.some((a) => !latin.includes(a.term)) || (prefix && vocab.hasPrefix(term)) || (latin.length > 0 && indexed(term));
    return { term, stems, typoStems, alts, headKeys, prefix, known };
  });
  // A word typed twice asks nothing more (and would be expanded twice).
  const distinct = groups.filter((g, i) => groups.findIndex((o) => o.term === g.term && o.prefix === g.prefix) === i);
  return { kind: "text", groups: distinct, quantities, numbers, nameHash: hashString(nameKey(q)) };
}
