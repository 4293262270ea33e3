/**
 * Search relevance bench: the relevance suite of test/search/relevance-suite.test.ts (judged
 * queries in ten classes over the demo corpus and, when present, the published sample files),
 * per-class recall@10 and MRR of the service beside SQLite FTS5 trigram over the same names,
 * measured in the same run. Writes the `## Search relevance` section of bench/RESULTS.md.
 *
 *   bun bench/search-relevance.ts [--no-write] [--misses CLASS]
 */
import { setLogLevel } from "../src/lib/log.ts";
import { REAL_SAMPLES, realSamplesFor } from "../test/helpers/real-samples.ts";
import { demoCorpus, realCorpus, type Corpus } from "../test/search/relevance/corpus.ts";
import { formatScores, runSuite } from "../test/search/relevance/run.ts";
import { flag } from "./lib/args.ts";
import { machineLine, writeSection } from "./lib/results.ts";

const args = process.argv.slice(2);
setLogLevel("warn");
const corpora: Corpus[] = [await demoCorpus(0.3)];
if (realSamplesFor("search relevance bench: the published-files corpus")) corpora.push(await realCorpus(REAL_SAMPLES));
const result = await runSuite(corpora);
const lines = formatScores(result);
console.log(lines.join("\n"));

const missesOf = args.includes("--misses") ? args[args.indexOf("--misses") + 1] : undefined;
if (missesOf) {
  const names = new Map(corpora.flatMap((c) => c.items.map((i) => [`${c.label}:${i.id}`, i.name])));
  for (const m of result.service.misses) {
    if (missesOf !== "all" && m.query.cls !== missesOf) continue;
    const top = m.top.slice(0, 4).map((id) => names.get(`${m.query.corpus}:${id}`)).join(" | ");
    console.log(`${m.query.cls} ${m.query.corpus} ${JSON.stringify(m.query.q)} recall ${m.recall.toFixed(2)} of ${m.query.relevant.size} → ${top}`);
  }
}

if (!flag(args, "no-write")) {
  writeSection(
    "Search relevance",
    [
      machineLine(),
      "",
      `Judged queries (test/search/relevance/judge.ts: made from the item names by rules and from hand-written lists, relevance decided by rules over the names): ${result.perCorpus
        .map((c) => `${c.label} corpus ${c.products.toLocaleString("en")} products, ${c.queries} queries`)
        .join("; ")}. recall@10 = relevant found in the first 10 ÷ min(relevant, 10); MRR of the first relevant answer in the first 10. Baseline: SQLite FTS5 (trigram tokenizer) over the same served names and barcodes, every query word of ≥ 3 characters required, bm25 order.`,
      "",
      ...lines,
    ].join("\n"),
  );
}
