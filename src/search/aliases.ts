import table from "../../data/search-aliases.json" with { type: "json" };
import { searchTerms } from "./hebrew.ts";

interface Form {
  group: number;
  terms: string[];
}

/** Every spelling of every group, by its first search term. */
const FORMS_BY_FIRST = new Map<string, Form[]>();
/** The search terms of each group's spellings. */
const GROUPS: string[][][] = table.groups.map((spellings, group) => {
  const forms = spellings.map((s) => searchTerms(s)).filter((t) => t.length > 0);
  for (const terms of forms) {
    const list = FORMS_BY_FIRST.get(terms[0]!) ?? [];
    list.push({ group, terms });
    FORMS_BY_FIRST.set(terms[0]!, list);
  }
  return forms;
});

/**
 * True when some spelling starts with this search term: a document none of whose terms does has no aliases.
 *
 * @example startsAlias("קוקה") // → true;  startsAlias("חלב") // → false
 */
export function startsAlias(term: string): boolean {
  return FORMS_BY_FIRST.has(term);
}

function startsAt(terms: string[], at: number, run: string[]): boolean {
  if (at + run.length > terms.length) return false;
  for (let j = 0; j < run.length; j++) if (terms[at + j] !== run[j]) return false;
  return true;
}

/**
 * The other spellings (search terms) of the brands found in a document's term lists, per
 * data/search-aliases.json. Each list is scanned on its own so a spelling never spans two.
 *
 * @example aliasTerms([["קוקה", "קולה", "זירו"]]) // → ["coca", "cola", "coke", "קוקקולה", "cocacola"]
 */
export function aliasTerms(lists: string[][]): string[] {
  // Arrays rather than sets: a document finds a group or two (the index builder calls this for
  // every product holding a word some spelling starts with), and the order is the sets' order.
  let found: number[] | null = null;
  for (const terms of lists) {
    for (let i = 0; i < terms.length; i++) {
      const forms = FORMS_BY_FIRST.get(terms[i]!);
      if (!forms) continue;
      for (const form of forms) if (startsAt(terms, i, form.terms) && !found?.includes(form.group)) (found ??= []).push(form.group);
    }
  }
  if (!found) return [];
  const out: string[] = [];
  for (const group of found) {
    for (const terms of GROUPS[group]!) for (const t of terms) if (!out.includes(t) && !lists.some((list) => list.includes(t))) out.push(t);
  }
  return out;
}
