/**
 * Hebrew text analysis for product search: one normalisation for documents and queries.
 *
 * Pipeline: `normalize` (niqqud, quote look-alikes, maqaf, decimal comma, lowercase) →
 * `tokenize` (numbers, Hebrew words with inner geresh/gershayim, other letters; letters and
 * digits never share a token) → `canonicalToken` (quotes dropped, final letters folded,
 * numbers and units canonical) → `searchTerm` (numbers and units leave the full-text index:
 * they live in structured size fields, see quantities.ts).
 *
 * Prefix letters (ו ה ב כ ל מ ש and their clusters) are not stripped from what is indexed;
 * `prefixStems` gives the variants that go into a separate low-boost field at index time and
 * into OR-groups at query time (research notes §1.3).
 */

export { parseQuantities, type Quantity, type SizeUnit } from "./quantities.ts";

const FINALS: Record<string, string> = { "ך": "כ", "ם": "מ", "ן": "נ", "ף": "פ", "ץ": "צ" };
const GERESH_LIKE = /['\u05F3\u2018\u2019\u201B\u0060\u00B4\u02BC\u02B9]/g;
const GERSHAYIM_LIKE = /["\u05F4\u201C\u201D\u201E\u201F\u02BA]|''/g;

/**
 * Normalises text for search: NFKD without combining marks (niqqud, cantillation, presentation
 * forms, Latin accents), maqaf → `-`, geresh/gershayim look-alikes unified to `'`/`"`, decimal
 * comma → point, `3 אחוז` → `3%`, pack multipliers (`6x1.5`, `6*1.5`) split, a hyphenated one-letter prefix
 * (`ל-ליזין`, `ב-100`) dropped, lowercase.
 *
 * @example normalize("שׁוֹקוֹלָד מְרִיר 1,5 ק״ג") // → 'שוקולד מריר 1.5 ק"ג'
 */
export function normalize(text: string): string {
  return normalizeKeepingPacks(text).replace(/(\d)\s*[x×*]\s*(?=\d)/g, "$1 ");
}

/** `normalize` without splitting pack multipliers (`6x1.5` stays): the input of quantity parsing. */
export function normalizeKeepingPacks(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .replace(/\u05BE/g, "-")
    .replace(GERESH_LIKE, "'")
    .replace(GERSHAYIM_LIKE, '"')
    .replace(/(\d),(\d)/g, "$1.$2")
    .replace(/(\d)\s*(?:אחוזים|אחוז)(?![\u05D0-\u05EA])/g, "$1%")
    .replace(/(^|[^\p{L}\p{N}])[ובכלמהש]-(?=[\p{L}\p{N}])/gu, "$1")
    .toLowerCase();
}

// A number (decimal point, %), a Hebrew word that may hold geresh/gershayim between letters
// or a geresh at its end (קוטג', מ"ל), or a run of other letters. Everything else separates.
export const TOKEN = /\d+(?:\.\d+)?%?|[\u05D0-\u05EA]+(?:["'][\u05D0-\u05EA]+)*'?|\p{L}+/gu;

/**
 * Splits normalised text into raw tokens (quotes still inside Hebrew tokens).
 *
 * @example tokenize('קוטג׳ 5% 250גר\'') // → ["קוטג'", "5%", "250", "גר'"]
 */
export function tokenize(text: string): string[] {
  return normalize(text).match(TOKEN) ?? [];
}

/** Unit spellings (quotes removed, finals folded) → canonical unit token. */
export const UNIT_ALIASES: Record<string, string> = {
  "גרמ": "גרמ", "גר": "גרמ", "ג": "גרמ", "גרמים": "גרמ", g: "גרמ", gr: "גרמ", gram: "גרמ", grams: "גרמ",
  "קג": "קג", "קילו": "קג", "קילוגרמ": "קג", kg: "קג",
  "מג": "מג", mg: "מג", "מקג": "מקג", mcg: "מקג",
  "ליטר": "ליטר", "ליט": "ליטר", "ל": "ליטר", "ליטרים": "ליטר", l: "ליטר", lt: "ליטר", ltr: "ליטר", liter: "ליטר", litre: "ליטר",
  "מל": "מל", ml: "מל", "סמק": "מל", cc: "מל",
  "יח": "יח", "יחידות": "יח", "יחידה": "יח", "יחי": "יח", pcs: "יח", units: "יח", unit: "יח",
  "מטר": "מטר", "סמ": "סמ",
};

/** True for a canonical unit token (`גרמ`, `ליטר`, `מל`, `קג`, `יח`, …). */
export function isUnit(token: string): boolean {
  return Object.hasOwn(UNIT_ALIASES, token);
}

/** Folds the five final letters to their regular forms. */
export function foldFinals(text: string): string {
  return text.replace(/[ךםןףץ]/g, (c) => FINALS[c]!);
}

/**
 * A raw token in canonical form: quotes removed, final letters folded, numbers canonical
 * (`1.50` → `1.5`, `3.0%` → `3%`), unit spellings unified. Used for exact-name keys.
 *
 * @example canonicalToken('מ"ל') // → "מל";  canonicalToken("1.50") // → "1.5";  canonicalToken("גר'") // → "גרמ"
 */
export function canonicalToken(raw: string): string {
  if (/^\d/.test(raw)) {
    const percent = raw.endsWith("%");
    return String(Number.parseFloat(raw)) + (percent ? "%" : "");
  }
  const t = foldFinals(raw.replace(/["']/g, ""));
  return UNIT_ALIASES[t] ?? t;
}

/**
 * The full-text term of a raw token, or null for what stays out of the index: bare numbers
 * (sizes live in structured fields; `3%` stays, it tells products apart), units, and
 * one-letter Hebrew tokens.
 *
 * @example searchTerm("שמנת") // → "שמנת";  searchTerm("250") // → null;  searchTerm("3%") // → "3%";  searchTerm('מ"ל') // → null
 */
export function searchTerm(raw: string): string | null {
  const t = canonicalToken(raw);
  if (t === "") return null;
  if (/^\d/.test(t)) return t.endsWith("%") ? t : null;
  if (isUnit(t)) return null;
  if (t.length === 1 && /[\u05D0-\u05EA]/.test(t)) return null;
  return t;
}

/**
 * The search terms of a text, in order.
 *
 * @example searchTerms("קוקה קולה זירו 1.5 ל'") // → ["קוקה", "קולה", "זירו"]
 */
export function searchTerms(text: string): string[] {
  const out: string[] = [];
  for (const raw of tokenize(text)) {
    const t = searchTerm(raw);
    if (t !== null) out.push(t);
  }
  return out;
}

/**
 * Key for exact-name matching: every token canonical (numbers and units included), joined by
 * spaces. Two spellings of one name (finals, quotes, niqqud, `1,5`/`1.5`) get the same key.
 *
 * @example nameKey('קוטג׳ 5% 250 גר"') === nameKey("קוטג' 5% 250 גרם") // → true
 */
export function nameKey(text: string): string {
  return tokenize(text).map(canonicalToken).join(" ");
}

/**
 * One pass over a name: its search terms and its exact-name key (see `searchTerms`, `nameKey`).
 *
 * @example analyzeName("קוטג' 5% 250 גרם") // → { terms: ["קוטג", "5%"], key: "קוטג 5% 250 גרמ" }
 */
export function analyzeName(text: string): { terms: string[]; key: string } {
  const tokens = tokenize(text);
  const terms: string[] = [];
  for (const raw of tokens) {
    const t = searchTerm(raw);
    if (t !== null) terms.push(t);
  }
  return { terms, key: tokens.map(canonicalToken).join(" ") };
}

// A prefix cluster: ו? then ש/כש/מש/לכש? then one of ב כ ל מ? then ה? (ו, ה, וה, שב, מה, וכשה, …).
const CLUSTER = /^ו?(?:ש|כש|מש|לכש)?[בכלמ]?ה?$/;

/**
 * The variants of a Hebrew term with a leading prefix-letter cluster removed, longest
 * remainder first. Only terms of ≥4 letters, only remainders of ≥3 letters; `maxCluster`
 * limits the cluster length (3 at index time, 4 for queries like וכשהחלב).
 *
 * @example prefixStems("והחלב") // → ["החלב", "חלב"];  prefixStems("בטעמ") // → ["טעמ"];  prefixStems("חלב") // → []
 */
export function prefixStems(term: string, maxCluster = 3): string[] {
  if (term.length < 4 || !/^[\u05D0-\u05EA]+$/.test(term)) return [];
  const out: string[] = [];
  const limit = Math.min(maxCluster, term.length - 3);
  for (let n = 1; n <= limit; n++) {
    if (CLUSTER.test(term.slice(0, n))) out.push(term.slice(n));
  }
  return out;
}

/** True when the term is written in Hebrew letters only. */
export function isHebrew(term: string): boolean {
  return /^[\u05D0-\u05EA]+$/.test(term);
}
