/**
 * English and Latin-letter grocery words → Hebrew (src/search/english.json): `milk` is searched
 * as `חלב`, `toilet paper` as `נייר טואלט`, `bamba` as `במבה`. Query side only: the Latin words
 * still match a product whose own name holds them (at a lower weight, see query.ts).
 */
import table from "./english.json" with { type: "json" };
import { searchTerms } from "./hebrew.ts";

/** Longest phrase of the table, in words. */
const MAX_WORDS = 4;

/** Key (Latin search terms joined by spaces) → Hebrew search terms. */
const PHRASES = new Map<string, string[]>();
for (const [english, hebrew] of Object.entries(table.words)) {
  const key = searchTerms(english).join(" ");
  const terms = searchTerms(hebrew);
  if (key !== "" && terms.length > 0 && !PHRASES.has(key)) PHRASES.set(key, terms);
}

/** Number of phrases in the table. */
export const ENGLISH_PHRASES = PHRASES.size;

/** The Hebrew terms of one Latin word or phrase (search terms), trying English singulars of a word not listed. */
function lookup(key: string): string[] | undefined {
  const found = PHRASES.get(key);
  if (found || key.includes(" ")) return found;
  if (key.endsWith("ies")) return PHRASES.get(key.slice(0, -3) + "y");
  if (key.endsWith("es")) return PHRASES.get(key.slice(0, -2)) ?? PHRASES.get(key.slice(0, -1));
  if (key.endsWith("s")) return PHRASES.get(key.slice(0, -1));
  return PHRASES.get(key + "s");
}

const LATIN = /^[a-z][a-z&']*$/;

/** A run of a query's terms replaced by its Hebrew words. */
export interface Translation {
  /** Index of the first term of the run, and the number of terms. */
  at: number;
  length: number;
  hebrew: string[];
}

/**
 * The Latin phrases of a query's terms that the table knows, longest first, left to right.
 *
 * @example translations(["toilet", "paper", "32"]) // → [{ at: 0, length: 2, hebrew: ["נייר", "טואלט"] }]
 * @example translations(["milk", "תנובה"]) // → [{ at: 0, length: 1, hebrew: ["חלב"] }]
 */
export function translations(terms: string[]): Translation[] {
  const out: Translation[] = [];
  let i = 0;
  while (i < terms.length) {
    let found: Translation | null = null;
    if (LATIN.test(terms[i]!)) {
      for (let n = Math.min(MAX_WORDS, terms.length - i); n >= 1 && !found; n--) {
        const run = terms.slice(i, i + n);
        if (!run.every((t) => LATIN.test(t))) continue;
        const hebrew = lookup(run.join(" "));
        if (hebrew) found = { at: i, length: n, hebrew };
      }
    }
    if (found) {
      out.push(found);
      i += found.length;
    } else i++;
  }
  return out;
}
