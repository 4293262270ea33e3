/**
 * The relevance suite (issue 42): several hundred queries in ten classes, judged by rules over
 * the item names (test/search/relevance/judge.ts), over the demo's catalogue as the service
 * imports it and, when present, the chains' published sample files. Prints per-class recall@10
 * and MRR beside a baseline measured in the same run (SQLite FTS5 trigram over the same names);
 * bench/search-relevance.ts records them in bench/RESULTS.md.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { setLogLevel } from "../../src/lib/log.ts";
import { REAL_SAMPLES, realSamplesFor } from "../helpers/real-samples.ts";
import { demoCorpus, realCorpus, type Corpus } from "./relevance/corpus.ts";
import { CLASSES } from "./relevance/judge.ts";
import { formatScores, runSuite, type SuiteResult } from "./relevance/run.ts";

/** What the suite must reach: overall, and in every class. */
const TARGET = { overall: 0.95, perClass: 0.9 };
let result: SuiteResult;
const withReal = realSamplesFor("search relevance suite: the published-files corpus");

beforeAll(async () => {
  setLogLevel("warn");
  const corpora: Corpus[] = [await demoCorpus(0.3)];
  if (withReal) corpora.push(await realCorpus(REAL_SAMPLES));
  result = await runSuite(corpora);
}, 120_000);

describe("search relevance suite (issue 42)", () => {
  test("several hundred judged queries in every class", () => {
    expect(result.queries.length).toBeGreaterThanOrEqual(withReal ? 600 : 350);
    for (const cls of CLASSES) expect(result.queries.filter((q) => q.cls === cls).length).toBeGreaterThanOrEqual(10);
    for (const q of result.queries) expect(q.relevant.size).toBeGreaterThan(0);
  });

  test("recall@10 per class and overall, beside the FTS5 trigram baseline", () => {
    console.log([`search relevance suite: ${result.perCorpus.map((c) => `${c.label} ${c.products} products, ${c.queries} queries`).join("; ")}`, ...formatScores(result)].join("\n"));
    const overall = result.service.byClass.get("overall")!;
    expect(overall.recall).toBeGreaterThanOrEqual(TARGET.overall);
    const below = [...result.service.byClass]
      .filter(([cls, s]) => cls !== "overall" && s.recall < TARGET.perClass)
      .map(([cls, s]) => `${cls} ${s.recall.toFixed(3)}`);
    expect(below).toEqual([]);
    // The service beats the baseline overall.
    expect(overall.recall).toBeGreaterThan(result.baseline.byClass.get("overall")!.recall);
  });
});
