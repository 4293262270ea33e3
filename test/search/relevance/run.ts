/**
 * Runs the relevance suite: the service's search and the baseline (SQLite FTS5 with the trigram
 * tokenizer over the same served names and barcodes) answer every judged query of every corpus.
 */
import { Database } from "bun:sqlite";
import { ProductSearch } from "../../../src/search/index.ts";
import type { Corpus } from "./corpus.ts";
import { evaluate, judgedQueries, type JudgedQuery, type Scores } from "./judge.ts";

/** Queries per generated class and corpus. */
export const PER_CLASS = { demo: 30, real: 20 } as Record<string, number>;

/** A baseline a search engine should beat: FTS5 trigram, every query word of ≥3 characters required, bm25 order. */
export function ftsBaseline(corpus: Corpus): (q: string) => number[] {
  const db = new Database(":memory:");
  db.run("CREATE VIRTUAL TABLE names USING fts5(name, barcode, tokenize = 'trigram')");
  const insert = db.prepare("INSERT INTO names (rowid, name, barcode) VALUES (?, ?, ?)");
  db.transaction(() => {
    for (const item of corpus.items) insert.run(item.id, item.name, item.barcode);
  })();
  const query = db.prepare("SELECT rowid AS id FROM names WHERE names MATCH ? ORDER BY rank LIMIT 10");
  return (q) => {
    const terms = q
      .split(/[\s,.()\-]+/)
      .map((t) => t.replace(/["'״׳]/g, ""))
      .filter((t) => t.length >= 3);
    if (terms.length === 0) return [];
    return (query.all(terms.map((t) => `"${t}"`).join(" AND ")) as { id: number }[]).map((r) => r.id);
  };
}

/** The service's search over a corpus' database (its index built first). */
export async function serviceSearch(corpus: Corpus): Promise<{ answer: (q: string) => number[]; search: ProductSearch }> {
  const search = new ProductSearch({ cacheEntries: 0 });
  await search.rebuild(corpus.db);
  return { answer: (q) => search.search({ q, limit: 10, offset: 0 }).ids, search };
}

export interface SuiteResult {
  queries: JudgedQuery[];
  service: ReturnType<typeof evaluate>;
  baseline: ReturnType<typeof evaluate>;
  perCorpus: { label: string; products: number; queries: number }[];
}

/** Judges, asks and scores every corpus' queries. */
export async function runSuite(corpora: Corpus[]): Promise<SuiteResult> {
  const all: JudgedQuery[] = [];
  const serviceAnswers = new Map<JudgedQuery, number[]>();
  const baselineAnswers = new Map<JudgedQuery, number[]>();
  const perCorpus: SuiteResult["perCorpus"] = [];
  for (const corpus of corpora) {
    const queries = judgedQueries(corpus, PER_CLASS[corpus.label] ?? 20);
    const { answer } = await serviceSearch(corpus);
    const baseline = ftsBaseline(corpus);
    for (const q of queries) {
      serviceAnswers.set(q, answer(q.q));
      baselineAnswers.set(q, baseline(q.q));
    }
    all.push(...queries);
    perCorpus.push({ label: corpus.label, products: corpus.items.length, queries: queries.length });
  }
  const scored = (answers: Map<JudgedQuery, number[]>) => evaluate(all, (query) => answers.get(query)!);
  return { queries: all, service: scored(serviceAnswers), baseline: scored(baselineAnswers), perCorpus };
}

/** A table of per-class recall@10 and MRR, service beside baseline. */
export function formatScores(result: SuiteResult): string[] {
  const rows = [...result.service.byClass].map(([cls, s]) => {
    const b = result.baseline.byClass.get(cls)!;
    return [cls, s.queries, s.recall.toFixed(3), s.mrr.toFixed(3), b.recall.toFixed(3), b.mrr.toFixed(3)] as (string | number)[];
  });
  return [
    "| class | queries | recall@10 | MRR | FTS5 trigram recall@10 | FTS5 trigram MRR |",
    "|---|---|---|---|---|---|",
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ];
}

export type { Scores };
