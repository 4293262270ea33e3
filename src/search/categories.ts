import table from "../../data/categories.json" with { type: "json" };
import { prefixStems, searchTerms } from "./hebrew.ts";

/** A product category: stable slug (API value), Hebrew label, label-image colour. */
export interface Category {
  slug: string;
  name: string;
  color: string;
}

interface CategorySpec extends Category {
  strongWeight?: number;
  strong: string[];
  words: string[];
  phrases: string[];
  manufacturers: string[];
}

/** Every category, in the order of data/categories.json (earlier wins a tie); `other` is last. */
export const CATEGORIES: readonly Category[] = (table.categories as CategorySpec[]).map(({ slug, name, color }) => ({ slug, name, color }));

/**
 * Changes whenever data/categories.json does: imports compare it with the one stored in `meta`
 * and classify every stored product again after an upgrade changed the table.
 */
export const CATEGORIES_VERSION = Bun.hash(JSON.stringify(table)).toString(36);

/** The fallback slug when no keyword matches. */
export const OTHER = "other";

const BY_SLUG = new Map(CATEGORIES.map((c) => [c.slug, c]));

/**
 * The category with this slug, or undefined.
 *
 * @example categoryBySlug("dairy")?.name // → "חלב ומוצריו"
 */
export function categoryBySlug(slug: string): Category | undefined {
  return BY_SLUG.get(slug);
}

const STRONG = 10;
const PHRASE = 4;
const MANUFACTURER = 1.5;
/** Weight of a word by its position: Hebrew product names put the head noun first. */
const positionWeight = (position: number) => (position === 0 ? 4 : position === 1 ? 2 : 1);

interface Rule {
  category: number;
  terms: string[];
  kind: "strong" | "word" | "phrase";
  /** Score of a strong match. */
  strong: number;
}

interface Compiled {
  /** Single-term rules by term. */
  single: Map<string, Rule[]>;
  /** Multi-term rules by first term. */
  multi: Map<string, Rule[]>;
  manufacturers: { category: number; terms: string[] }[];
}

function compile(): Compiled {
  const single = new Map<string, Rule[]>();
  const multi = new Map<string, Rule[]>();
  const manufacturers: Compiled["manufacturers"] = [];
  (table.categories as CategorySpec[]).forEach((spec, category) => {
    const add = (keyword: string, kind: Rule["kind"]) => {
      const terms = searchTerms(keyword);
      if (terms.length === 0) return;
      const rule: Rule = { category, terms, kind: terms.length > 1 && kind === "word" ? "phrase" : kind, strong: spec.strongWeight ?? STRONG };
      const map = terms.length === 1 ? single : multi;
      const list = map.get(terms[0]!) ?? [];
      list.push(rule);
      map.set(terms[0]!, list);
    };
    for (const k of spec.strong) add(k, "strong");
    for (const k of spec.words) add(k, "word");
    for (const k of spec.phrases) add(k, "phrase");
    for (const m of spec.manufacturers) {
      const terms = searchTerms(m);
      if (terms.length > 0) manufacturers.push({ category, terms });
    }
  });
  return { single, multi, manufacturers };
}

const compiled = compile();
if (CATEGORIES.length > 31) throw new Error("categories.ts scores categories in a 31-bit mask");

/** True when `run` occurs in `terms` starting at `at`. */
function runAt(terms: readonly string[], at: number, run: readonly string[]): boolean {
  if (at + run.length > terms.length) return false;
  for (let j = 0; j < run.length; j++) if (terms[at + j] !== run[j]) return false;
  return true;
}

function containsRun(terms: readonly string[], run: readonly string[]): boolean {
  for (let i = 0; i + run.length <= terms.length; i++) if (runAt(terms, i, run)) return true;
  return false;
}

/**
 * Category slug of a product from keywords in its name (and a hint from the manufacturer),
 * per data/categories.json; `other` when nothing matches.
 *
 * @example classify("חלב תנובה 3% 1 ליטר") // → "dairy"
 * @example classify("שוקולד חלב עלית 100 גרם") // → "sweets"  (the head noun outweighs "חלב")
 * @example classify("חטיף לכלבים בטעם עוף 100 גרם") // → "pet"
 */
export function classify(name: string, manufacturer?: string | null): string {
  return classifyTerms(searchTerms(name), manufacturer ? searchTerms(manufacturer) : []);
}

/**
 * `classify` on search terms already computed (the index builder has them).
 *
 * @example classifyTerms(["קוטג", "5%"], ["תנובה"]) // → "dairy"
 */
export function classifyTerms(terms: string[], manufacturerTerms: string[]): string {
  return classifyWords(terms, terms.map(wordCategories), manufacturerCategories(manufacturerTerms));
}

/**
 * The categories one word scores for by itself (the word, then its prefix stems; each category
 * once), flattened as pairs: category, points (-1: the word's position weight). What
 * `classifyWords` needs of each word; the index builder computes it once per distinct word.
 *
 * @example wordCategories("חלב") // → [11, -1] (dairy, by position)
 */
export function wordCategories(term: string): number[] {
  const out: number[] = [];
  let seen = 0; // categories this word already scored for (bitmask: fewer than 32 categories)
  const score = (candidate: string) => {
    const rules = compiled.single.get(candidate);
    if (!rules) return;
    for (const rule of rules) {
      const bit = 1 << rule.category;
      if (seen & bit) continue;
      seen |= bit;
      out.push(rule.category, rule.kind === "strong" ? rule.strong : -1);
    }
  };
  score(term);
  for (const stem of prefixStems(term)) score(stem);
  return out;
}

/**
 * The categories a manufacturer's search terms hint at (each once); the index builder computes
 * it once per manufacturer.
 *
 * @example manufacturerCategories(["תנובה"]) // → [11] (dairy)
 */
export function manufacturerCategories(manufacturerTerms: string[]): number[] {
  if (manufacturerTerms.length === 0) return [];
  const hinted = new Set<number>();
  for (const m of compiled.manufacturers) if (containsRun(manufacturerTerms, m.terms)) hinted.add(m.category);
  return [...hinted];
}

/** Scores of one classification (reused: the index builder classifies every product of a rebuild). */
const SCORES = new Float64Array(CATEGORIES.length);

/**
 * `classifyTerms` with each word's `wordCategories` and the manufacturer's
 * `manufacturerCategories` already at hand.
 *
 * @example classifyWords(["קוטג", "5%"], [wordCategories("קוטג"), wordCategories("5%")], manufacturerCategories(["תנובה"])) // → "dairy"
 */
export function classifyWords(terms: readonly string[], words: readonly (readonly number[])[], hinted: readonly number[]): string {
  const scores = SCORES.fill(0);
  for (let p = 0; p < terms.length; p++) {
    const single = words[p]!;
    for (let i = 0; i < single.length; i += 2) {
      const points = single[i + 1]!;
      scores[single[i]!]! += points >= 0 ? points : positionWeight(p);
    }
    const multi = compiled.multi.get(terms[p]!);
    if (multi) {
      for (const rule of multi) {
        if (!runAt(terms, p, rule.terms)) continue;
        scores[rule.category]! += (rule.kind === "strong" ? rule.strong : PHRASE) + positionWeight(p);
      }
    }
  }
  for (const category of hinted) scores[category]! += MANUFACTURER;
  let best = -1;
  let bestScore = 0;
  for (let i = 0; i < scores.length; i++) {
    if (scores[i]! > bestScore) {
      best = i;
      bestScore = scores[i]!;
    }
  }
  return best < 0 ? OTHER : CATEGORIES[best]!.slug;
}
