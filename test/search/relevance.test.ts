import { beforeAll, describe, expect, test } from "bun:test";
import queries from "../fixtures/search/queries.json" with { type: "json" };
import { analyzeName, searchTerm } from "../../src/search/hebrew.ts";
import { ProductSearch } from "../../src/search/index.ts";
import { CATALOGUE, catalogueDatabase } from "../helpers/search/catalogue-db.ts";

/**
 * The relevance set: queries as shoppers type them (prefix letters, final letters, quotes,
 * niqqud, typos, half-typed words, brands, Latin names, barcodes, sizes, number forms) with the products
 * they must find, on a fixture catalogue of real-looking names. Prints recall@10 per kind.
 */
interface RelevanceQuery {
  q: string;
  kind: string;
  expect: string[];
  first?: boolean;
}

const QUERIES = queries as RelevanceQuery[];
const search = new ProductSearch();
let nameOf: Map<number, string>;
let idOfName: Map<string, number>;

beforeAll(async () => {
  const { db, idOf } = catalogueDatabase();
  const byBarcode = new Map(CATALOGUE.map((p) => [p.barcode, p.name]));
  nameOf = new Map([...idOf].map(([barcode, id]) => [id, byBarcode.get(barcode)!]));
  idOfName = new Map([...nameOf].map(([id, name]) => [name, id]));
  await search.rebuild(db);
});

interface Outcome {
  query: RelevanceQuery;
  recall: number;
  firstOk: boolean | null;
  top: string[];
}

function evaluate(query: RelevanceQuery): Outcome {
  const { ids } = search.search({ q: query.q, limit: 10, offset: 0 });
  const found = query.expect.filter((name) => ids.includes(idOfName.get(name)!)).length;
  return {
    query,
    recall: found / query.expect.length,
    firstOk: query.first ? ids[0] === idOfName.get(query.expect[0]!) : null,
    top: ids.slice(0, 3).map((id) => nameOf.get(id)!),
  };
}

describe("search relevance on the fixture catalogue", () => {
  test("the set is large and covers every phenomenon", () => {
    expect(CATALOGUE.length).toBeGreaterThanOrEqual(400);
    expect(QUERIES.length).toBeGreaterThanOrEqual(150);
    const kinds = new Set(QUERIES.map((q) => q.kind));
    for (const kind of ["exact", "prefix-letters", "final-letters", "quotes", "number-forms", "niqqud", "typo", "partial", "brand", "latin", "barcode", "size"]) {
      expect(kinds.has(kind)).toBe(true);
    }
    // Every prefix letter opens some prefix-letters query, on its own or in a cluster.
    const openers = new Set(QUERIES.filter((q) => q.kind === "prefix-letters").map((q) => q.q[0]));
    for (const letter of ["ו", "ה", "ב", "כ", "ל", "מ", "ש"]) expect(openers.has(letter)).toBe(true);
    // And the quote phenomena the issue names.
    for (const quoted of ['מ"ל', 'ק"ג', "קוטג'"]) expect(QUERIES.some((q) => q.kind === "quotes" && q.q.includes(quoted))).toBe(true);
    for (const q of QUERIES) for (const name of q.expect) expect(idOfName.has(name)).toBe(true);
  });

  test("recall@10 ≥ 0.95 overall; the expected product first for exact names and barcodes", () => {
    const outcomes = QUERIES.map(evaluate);
    const byKind = new Map<string, Outcome[]>();
    for (const o of outcomes) byKind.set(o.query.kind, [...(byKind.get(o.query.kind) ?? []), o]);
    const mean = (list: Outcome[]) => list.reduce((s, o) => s + o.recall, 0) / list.length;
    const lines = [...byKind].map(([kind, list]) => {
      const firsts = list.filter((o) => o.firstOk !== null);
      const first = firsts.length ? `, first ${firsts.filter((o) => o.firstOk).length}/${firsts.length}` : "";
      return `  ${kind.padEnd(15)} ${String(list.length).padStart(3)} queries  recall@10 ${mean(list).toFixed(3)}${first}`;
    });
    const overall = mean(outcomes);
    const firsts = outcomes.filter((o) => o.firstOk !== null);
    const misses = outcomes.filter((o) => o.recall < 1 || o.firstOk === false);
    console.log(
      [
        `search relevance: ${outcomes.length} queries on ${CATALOGUE.length} products`,
        ...lines,
        `  overall recall@10 ${overall.toFixed(3)}; expected first ${firsts.filter((o) => o.firstOk).length}/${firsts.length}`,
        ...misses.map((o) => `  miss: ${JSON.stringify(o.query.q)} (${o.query.kind}) recall ${o.recall.toFixed(2)}${o.firstOk === false ? ", not first" : ""} → ${o.top.join(" | ")}`),
      ].join("\n"),
    );
    expect(overall).toBeGreaterThanOrEqual(0.95);
    expect(firsts.filter((o) => !o.firstOk).map((o) => o.query.q)).toEqual([]);
  });

  test("a one-word query ranks the products it names (their first word) before those it only describes", () => {
    // חלב: milk before milk chocolate; אורז: rice before rice cakes; שוקולד: chocolate bars before chocolate pudding.
    const headOf = new Map([...nameOf].map(([id, name]) => [id, analyzeName(name).terms[0]]));
    const lines: string[] = [];
    for (const word of ["חלב", "אורז", "שוקולד", "גבינה", "שמנת", "פיצה", "לבן", "קפה", "עגבניות", "יוגורט"]) {
      const term = searchTerm(word)!;
      const named = [...headOf.values()].filter((h) => h === term).length;
      const { ids } = search.search({ q: word, limit: 10, offset: 0 });
      const top = ids.slice(0, Math.min(3, named));
      expect(named).toBeGreaterThan(0);
      if (!top.every((id) => headOf.get(id) === term)) lines.push(`${word}: ${ids.slice(0, 3).map((id) => nameOf.get(id)).join(" | ")}`);
    }
    expect(lines).toEqual([]);
  });

  test("products with every word come before products with some; no typo neighbours when exact hits suffice", () => {
    const both = search.search({ q: "גבינה לבנה", limit: 50, offset: 0 });
    const names = both.ids.map((id) => nameOf.get(id)!);
    expect(new Set(names.slice(0, 2))).toEqual(new Set(["גבינה לבנה 5% 250 גרם", "גבינה לבנה 9% 500 גרם"]));
    for (const name of names.slice(2)) expect(name).not.toMatch(/גבינה לבנה/);
    const many = search.search({ q: "חלב תנובה", limit: 50, offset: 0 });
    const maker = new Map(CATALOGUE.map((p) => [p.name, p.manufacturer ?? ""]));
    for (const id of many.ids) expect(`${nameOf.get(id)} / ${maker.get(nameOf.get(id)!)}`).toMatch(/חלב.*תנובה/); // enough hits with both words: no partial ones
    const exact = search.search({ q: "קוטג'", limit: 50, offset: 0 });
    expect(exact.total).toBe(4); // no fuzzy neighbours of קוטג
  });
});
