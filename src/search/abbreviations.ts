/**
 * Abbreviations chains write in item names (quotes already dropped, finals folded: `תפו"א` →
 * `תפוא`, `פח'` → `פח`) → the words they stand for. A name holding one is also indexed under
 * the words (low-boost field), so `תפוחי אדמה` finds `תפו"א לבן` and `פחית` finds `קולה פח' 330`;
 * a query of one abbreviation also searches its single-word expansion.
 */
import { searchTerms } from "./hebrew.ts";

// Only unambiguous ones: `גל'` would also be ג'ל (gel), `שש` the word six.
const TABLE: [string, string][] = [
  ['תפו"א', "תפוחי אדמה"],
  ["פח'", "פחית"],
  ["בקב'", "בקבוק"],
  ["קרט'", "קרטון"],
  ["מאר'", "מארז"],
];

const EXPANSIONS = new Map<string, string[]>();
for (const [short, long] of TABLE) {
  const key = searchTerms(short).join(" ");
  if (key !== "" && !key.includes(" ")) EXPANSIONS.set(key, searchTerms(long));
}

/**
 * The words an abbreviation (a canonical search term) stands for, or undefined.
 *
 * @example expansion("תפוא") // → ["תפוחי", "אדמה"];  expansion("חלב") // → undefined
 */
export function expansion(term: string): string[] | undefined {
  return EXPANSIONS.get(term);
}
