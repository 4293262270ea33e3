/**
 * Hebrew text analysis for product search: one normalisation for documents and queries.
 *
 * Pipeline: `normalize` (niqqud, quote look-alikes, maqaf, decimal comma, lowercase; see
 * normalize.ts) → `tokenize` (numbers, Hebrew words with inner geresh/gershayim, other letters;
 * letters and digits never share a token) → `canonicalToken` (quotes dropped, final letters
 * folded, numbers and units canonical) → `searchTerm` (numbers and units leave the full-text
 * index: package sizes live in structured fields, see quantities.ts).
 *
 * Prefix letters (ו ה ב כ ל מ ש and their clusters) are not stripped from what is indexed;
 * `prefixStems` gives the variants that go into a separate low-boost field at index time and
 * into OR-groups at query time (research notes §1.3).
 */
import { foldFinals, isNumber, isTimes, normalize, normalizeKeepingPacks, pieces } from "./normalize.ts";
import { scanQuantities, type Quantity } from "./quantities.ts";

export { foldFinals, normalize, normalizeKeepingPacks } from "./normalize.ts";
export { parseQuantities, type Quantity, type SizeUnit } from "./quantities.ts";

/** Unit spellings (quotes removed, finals folded) → canonical unit token. */
const UNIT_ALIASES = new Map<string, string>([
  ...["גרמ", "גר", "ג", "גרמים", "g", "gr", "gram", "grams"].map((u): [string, string] => [u, "גרמ"]),
  ...["קג", "קילו", "קילוגרמ", "kg"].map((u): [string, string] => [u, "קג"]),
  ["מג", "מג"], ["mg", "מג"], ["מקג", "מקג"], ["mcg", "מקג"],
  ...["ליטר", "ליט", "ל", "ליטרים", "l", "lt", "ltr", "liter", "litre"].map((u): [string, string] => [u, "ליטר"]),
  ...["מל", "ml", "סמק", "cc"].map((u): [string, string] => [u, "מל"]),
  ...["יח", "יחידות", "יחידה", "יחי", "pcs", "units", "unit"].map((u): [string, string] => [u, "יח"]),
  ["מטר", "מטר"], ["סמ", "סמ"],
]);

/** 1 at the character code each unit spelling starts with: other words skip the lookup (NaN, an empty token's, reads undefined). */
const UNIT_FIRST = new Uint8Array(0x10000);
for (const unit of UNIT_ALIASES.keys()) UNIT_FIRST[unit.charCodeAt(0)] = 1;

/**
 * True for a unit spelling or canonical unit token (`גרמ`, `ליטר`, `מל`, `קג`, `יח`, …).
 *
 * @example isUnit("גר") // → true;  isUnit("גרנולה") // → false
 */
export function isUnit(token: string): boolean {
  return UNIT_ALIASES.has(token);
}

/**
 * Splits text into raw tokens (normalised; quotes still inside Hebrew tokens; pack signs gone).
 *
 * @example tokenize('קוטג׳ 5% 250גר\'') // → ["קוטג'", "5%", "250", "גר'"]
 */
export function tokenize(text: string): string[] {
  return pieces(normalize(text)).filter((p) => p !== "*" && p !== "×");
}

/**
 * A raw token in canonical form: quotes removed, final letters folded, numbers canonical
 * (`1.50` → `1.5`, `3.0%` → `3%`), unit spellings unified. Used for exact-name keys.
 *
 * @example canonicalToken('מ"ל') // → "מל";  canonicalToken("1.50") // → "1.5";  canonicalToken("גר'") // → "גרמ"
 */
export function canonicalToken(raw: string): string {
  const c = raw.charCodeAt(0);
  if (c >= 48 && c <= 57) {
    if (isPlainInteger(raw)) return raw;
    const percent = raw.charCodeAt(raw.length - 1) === 37;
    return percent || raw.includes(".") ? String(Number.parseFloat(raw)) + (percent ? "%" : "") : String(Number(raw));
  }
  // One scan for quotes and final letters (most words have neither).
  let quotes = false;
  let finals = false;
  for (let i = 0; i < raw.length; i++) {
    const d = raw.charCodeAt(i);
    if (d === 39 || d === 34) quotes = true;
    else if (d === 0x5da || d === 0x5dd || d === 0x5df || d === 0x5e3 || d === 0x5e5) finals = true;
  }
  let t = quotes ? raw.replace(/["']/g, "") : raw;
  if (finals) t = foldFinals(t);
  return UNIT_FIRST[t.charCodeAt(0)] === 1 ? (UNIT_ALIASES.get(t) ?? t) : t;
}

/** True for digits without a leading zero, few enough to be their own `String(Number(…))`. */
function isPlainInteger(raw: string): boolean {
  if (raw.length > 15 || (raw.charCodeAt(0) === 48 && raw.length > 1)) return false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** `searchTerm` of a token already in canonical form. */
function termOfCanonical(t: string): string | null {
  if (t === "") return null;
  const c = t.charCodeAt(0);
  if (c >= 48 && c <= 57) return t.charCodeAt(t.length - 1) === 37 ? t : null;
  if (UNIT_FIRST[c] === 1 && UNIT_ALIASES.has(t)) return null;
  if (t.length === 1 && c >= 0x5d0 && c <= 0x5ea) return null;
  return t;
}

/**
 * The full-text term of a raw token, or null for what stays out of the index: bare numbers
 * (sizes live in structured fields; `3%` stays, it tells products apart), units, and
 * one-letter Hebrew tokens.
 *
 * @example searchTerm("שמנת") // → "שמנת";  searchTerm("250") // → null;  searchTerm("3%") // → "3%";  searchTerm('מ"ל') // → null
 */
export function searchTerm(raw: string): string | null {
  return termOfCanonical(canonicalToken(raw));
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
 * One pass over a product name: its search terms, its exact-name key (see `searchTerms`,
 * `nameKey`) and the first package size it states.
 *
 * @example analyzeName("קוטג' 5% 250 גרם") // → { terms: ["קוטג", "5%"], key: "קוטג 5% 250 גרמ", quantity: { amount: 250, unit: "g", pack: null } }
 */
export function analyzeName(text: string): { terms: string[]; key: string; quantity: Omit<Quantity, "text"> | null } {
  const list = pieces(normalizeKeepingPacks(text));
  const terms: string[] = [];
  const key: string[] = [];
  for (let i = 0; i < list.length; i++) {
    const raw = list[i]!;
    if (isTimes(raw) && isNumber(list[i - 1]) && isNumber(list[i + 1])) continue; // 6*1.5, 6x1.5
    if (raw === "*" || raw === "×") continue;
    const t = canonicalToken(raw);
    key.push(t);
    const term = termOfCanonical(t);
    if (term !== null) terms.push(term);
  }
  const first = scanQuantities(list)[0];
  return { terms, key: key.join(" "), quantity: first ? first.quantity : null };
}

// Prefix clusters: ו? then ש/כש/מש/לכש? then one of ב כ ל מ? then ה? (ו, ה, וה, שב, מה, וכשה, …).
const CLUSTERS = new Set<string>();
for (const vav of ["", "ו"]) {
  for (const she of ["", "ש", "כש", "מש", "לכש"]) {
    for (const prep of ["", "ב", "כ", "ל", "מ"]) for (const he of ["", "ה"]) if (vav + she + prep + he) CLUSTERS.add(vav + she + prep + he);
  }
}
const HEBREW_WORD = /^[\u05D0-\u05EA]+$/;

/**
 * The variants of a Hebrew term with a leading prefix-letter cluster removed, longest
 * remainder first. Only terms of ≥4 letters, only remainders of ≥3 letters; `maxCluster`
 * limits the cluster length (3 at index time, 4 for queries like וכשהחלב).
 *
 * @example prefixStems("והחלב") // → ["החלב", "חלב"];  prefixStems("בטעמ") // → ["טעמ"];  prefixStems("חלב") // → []
 */
export function prefixStems(term: string, maxCluster = 3): string[] {
  if (term.length < 4) return [];
  const first = term.charCodeAt(0);
  // Every cluster starts with one of ו ה ב כ ל מ ש.
  if (first !== 0x5d5 && first !== 0x5d4 && first !== 0x5d1 && first !== 0x5db && first !== 0x5dc && first !== 0x5de && first !== 0x5e9) return [];
  if (!HEBREW_WORD.test(term)) return [];
  const out: string[] = [];
  const limit = Math.min(maxCluster, term.length - 3);
  for (let n = 1; n <= limit; n++) if (CLUSTERS.has(term.slice(0, n))) out.push(term.slice(n));
  return out;
}

/**
 * True when the term is written in Hebrew letters only.
 *
 * @example isHebrew("חלב") // → true;  isHebrew("3%") // → false
 */
export function isHebrew(term: string): boolean {
  return HEBREW_WORD.test(term);
}
