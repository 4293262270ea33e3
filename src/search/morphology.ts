/**
 * Grammatical number for grocery words: one key for the singular and the plural of a Hebrew noun
 * (`תפוח`/`תפוחים`, `עגבניה`/`עגבניות`/`עגבנייה`, `בננה`/`בננות`, `אשכולית`/`אשכוליות`), so a
 * shopper finds the fresh produce whichever number the chains name it in. The key goes into the
 * low-boost field at index time and is searched beside the word at query time: the same rule on
 * both sides. Terms arrive canonical (final letters folded, quotes dropped; see hebrew.ts).
 *
 * Rules, in order: the irregular table (construct forms such as `תפוחי`, `גבינת`; plurals whose
 * stem changes: `משקאות`; four-letter singulars: `בננה`); plene `ייה` → `יה`; `-ים` and `-ות`
 * removed from words of ≥5 letters, `-יות` keeping its `י`; `-ה` and `-ית`'s `ת` removed from
 * words of ≥5 letters. The key of a word no rule applies to is the word itself.
 */
import { foldFinals } from "./normalize.ts";

/** Forms the rules cannot reach → the key of their noun (final letters folded below). */
const IRREGULAR_FORMS: [string, string][] = [
  // four-letter singulars (the -ה rule starts at five letters: חלבה is not חלב, לבנה not לבן)
  ["בננה", "בננ"], ["בטטה", "בטט"], ["תאנה", "תאנה"], ["סלקה", "סלק"], ["ביצה", "ביצ"], ["פיתה", "פית"], ["עוגה", "עוג"], ["ריבה", "ריב"], ["סוכריה", "סוכרי"],
  // construct forms (the noun before another: תפוחי עץ, גבינת שמנת, ביצי חופש)
  ["תפוחי", "תפוח"], ["ביצי", "ביצ"], ["אגוזי", "אגוז"], ["חטיפי", "חטיפ"], ["מגבוני", "מגבונ"], ["גבינת", "גבינ"], ["עוגת", "עוג"],
  ["ריבת", "ריב"], ["דגני", "דגנ"], ["פרוסות", "פרוס"], ["שקדי", "שקד"], ["זיתי", "זית"], ["ירקות", "ירק"], ["פירות", "פרי"],
  ["חלות", "חלה"], ["חלה", "חלה"], ["משקאות", "משק"], ["משקה", "משק"], ["שקיות", "שקי"], ["שקית", "שקי"], ["כוסות", "כוס"], ["צלחות", "צלחת"],
  ["צלחת", "צלחת"], ["דלעות", "דלעת"], ["דלעת", "דלעת"], ["שמנים", "שמנ"], ["שמנ", "שמנ"], ["גבעולי", "גבעול"], ["תותים", "תות"], ["חסות", "חסה"], ["חסה", "חסה"],
  ["תאנים", "תאנה"], ["תאנה", "תאנה"], ["נקניקי", "נקניק"], ["מיצים", "מיצ"], ["מיצ", "מיצ"], ["ענבי", "ענב"], ["פלפלי", "פלפל"], ["תמרי", "תמר"],
];
const IRREGULAR = new Map(IRREGULAR_FORMS.map(([form, key]) => [foldFinals(form), foldFinals(key)]));

/**
 * The number key of a canonical Hebrew term (its own self when no rule applies).
 *
 * @example numberKey("תפוחימ") // → "תפוח";  numberKey("עגבנייה") === numberKey("עגבניות") // → true;  numberKey("חלב") // → "חלב"
 */
export function numberKey(term: string): string {
  const irregular = IRREGULAR.get(term);
  if (irregular) return irregular;
  let t = term;
  if (t.length >= 5 && t.endsWith("ייה")) t = t.slice(0, -3) + "יה";
  if (t.length >= 5 && t.endsWith("יות")) return t.slice(0, -2);
  if (t.length >= 5 && (t.endsWith("ימ") || t.endsWith("ות"))) return t.slice(0, -2);
  if (t.length >= 5 && t.endsWith("ית")) return t.slice(0, -1);
  if (t.length >= 5 && t.endsWith("ה")) return t.slice(0, -1);
  return t;
}

/**
 * The number key of a term when it differs from the term (what is indexed and searched beside it), or null.
 *
 * @example numberVariant("בננות") // → "בננ";  numberVariant("חלב") // → null
 */
export function numberVariant(term: string): string | null {
  if (!/^[\u05D0-\u05EA]{3,}$/.test(term)) return null;
  const key = numberKey(term);
  return key !== term && key.length >= 3 ? key : null;
}
