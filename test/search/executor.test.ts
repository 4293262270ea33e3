import { describe, expect, test } from "bun:test";
import { newEngine } from "../../src/search/build.ts";
import { QueryExecutor, ranked, type WordForm } from "../../src/search/executor.ts";
import { analyzeName, prefixStems } from "../../src/search/hebrew.ts";
import { BOOST } from "../../src/search/search-index.ts";
import { CATALOGUE } from "../helpers/search/catalogue-db.ts";

// The executor must give MiniSearch's own answers (same products, same BM25 scores), only faster.
const engine = newEngine();
engine.addAll(
  CATALOGUE.map((p, id) => {
    const { terms } = analyzeName(p.name);
    const brand = p.manufacturer ? analyzeName(p.manufacturer).terms : [];
    return { id, name: terms.join(" "), brand: brand.join(" "), nameAlt: terms.flatMap((t) => prefixStems(t)).join(" ") };
  }),
);
const WEIGHTS = { prefix: 0.6, fuzzy: 0.3 };
const executor = new QueryExecutor(engine, BOOST, WEIGHTS);
const ones = new Float32Array(CATALOGUE.length).fill(1);
const form = (term: string, prefix = false, fuzzy = 0): WordForm => ({ term, weight: 1, prefix, fuzzy });

function miniSearch(words: string[], mode: "AND" | "OR", prefixLast: boolean, fuzzy: number) {
  const results = engine.search(words.join(" "), {
    fields: ["name", "brand", "nameAlt"],
    boost: BOOST,
    weights: WEIGHTS,
    combineWith: mode,
    prefix: (_t, i, all) => prefixLast && i === all.length - 1,
    fuzzy: fuzzy || false,
  });
  // MiniSearch multiplies a score by the number of query words the product matched.
  return new Map(results.map((r) => [r.id as number, r.score / r.queryTerms.length]));
}

describe("QueryExecutor", () => {
  const cases: [string[], "AND" | "OR", boolean, number][] = [
    [["חלב"], "AND", false, 0],
    [["חלב", "תנובה"], "AND", false, 0],
    [["שוקולד", "חלב"], "AND", true, 0],
    [["קפה", "טור"], "AND", true, 0],
    [["במבה", "נוגט", "אסמ"], "AND", false, 0],
    [["שוקולאד"], "AND", false, 1],
    [["גבינה", "לבנה", "צהובה"], "OR", false, 0],
    [["מימ", "מינרליימ"], "AND", true, 0],
    [["טעמ"], "AND", false, 0],
  ];
  for (const [words, mode, prefixLast, fuzzy] of cases) {
    test(`${mode} ${words.join(" ")}${prefixLast ? " (prefix)" : ""}${fuzzy ? " (fuzzy)" : ""}`, () => {
      const expected = miniSearch(words, mode, prefixLast, fuzzy);
      const groups = words.map((w, i) => [form(w, prefixLast && i === words.length - 1, fuzzy)]);
      const got = executor.run(groups, mode, ones, null);
      const mine = new Map([...got.docs].map((doc, i) => [doc, got.scores[i]!]));
      expect([...mine.keys()].sort((a, b) => a - b)).toEqual([...expected.keys()].sort((a, b) => a - b));
      if (mode === "AND") for (const [doc, score] of expected) expect(mine.get(doc)!).toBeCloseTo(score, 9);
      expect(expected.size).toBeGreaterThan(0);
    });
  }

  test("filters drop products before scoring; boosts multiply scores; ranked orders by score", () => {
    const groups = [[form("חלב")]];
    const all = executor.run(groups, "AND", ones, null);
    const even = executor.run(groups, "AND", ones, (doc) => doc % 2 === 0);
    expect([...even.docs].sort()).toEqual([...all.docs].filter((d) => d % 2 === 0).sort());
    const boost = new Float32Array(CATALOGUE.length).fill(1);
    const last = all.docs[all.docs.length - 1]!;
    boost[last] = 100;
    expect(ranked(executor.run(groups, "AND", boost, null))[0]).toBe(last);
    expect([...ranked({ docs: Int32Array.of(4, 9, 2), scores: Float64Array.of(1, 2, 1) })]).toEqual([9, 2, 4]);
  });

  test("the term tree is the vocabulary: words as written, prefixes, frequencies", () => {
    const count = (term: string) =>
      CATALOGUE.filter((p) => analyzeName(p.name).terms.includes(term)).length +
      CATALOGUE.filter((p) => p.manufacturer && analyzeName(p.manufacturer).terms.includes(term)).length;
    expect(executor.frequency("חלב")).toBe(count("חלב"));
    expect(executor.frequency("תנובה")).toBe(count("תנובה"));
    expect(executor.has("חלב")).toBe(true);
    expect(executor.has("חל")).toBe(false);
    expect(executor.has("מבה")).toBe(false); // only a stem (of במבה), not a word of any name
    expect(executor.hasPrefix("חל")).toBe(true);
    expect(executor.hasPrefix("חלבו")).toBe(false);
    expect(executor.frequency("קפקפ")).toBe(0);
  });

  test("fuzzySurfaceBelow: short typo matches count in names and manufacturers, not in stems", () => {
    // בננה is one edit from בנה, which only the stems field holds (stem of לבנה, ...).
    const plain = executor.run([[form("בננה", false, 1)]], "AND", ones, null);
    expect(plain.docs.length).toBeGreaterThan(0);
    const guarded = executor.run([[{ ...form("בננה", false, 1), fuzzySurfaceBelow: 4 }]], "AND", ones, null);
    expect(guarded.docs.length).toBe(0);
    // חלבב is one edit from חלב (3 letters, in names) and from חלבה: both still found.
    const milk = executor.run([[{ ...form("חלבב", false, 1), fuzzySurfaceBelow: 4 }]], "AND", ones, null);
    const names = [...milk.docs].map((doc) => CATALOGUE[doc]!.name);
    expect(names).toContain("חלב תנובה 3% 1 ליטר");
    expect(names).toContain("חלבה בטעם וניל 500 גרם");
    // Longer typo matches still reach the stems: בישולל finds שמנת לבישול only through the stem בישול.
    const cooking = executor.run([[{ ...form("בישולל", false, 1), fuzzySurfaceBelow: 4 }]], "AND", ones, null);
    expect([...cooking.docs].map((doc) => CATALOGUE[doc]!.name)).toContain('שמנת לבישול 10% 250 מ"ל');
  });

  test("a word nothing has empties an AND; OR keeps the rest, more words matched ranking higher", () => {
    expect(executor.run([[form("חלב")], [form("אאאא")]], "AND", ones, null).docs.length).toBe(0);
    const or = ranked(executor.run([[form("גבינה")], [form("לבנה")]], "OR", ones, null));
    const names = [...or].map((doc) => CATALOGUE[doc]!.name);
    expect(names.slice(0, 2).sort()).toEqual(["גבינה לבנה 5% 250 גרם", "גבינה לבנה 9% 500 גרם"]);
  });
});
