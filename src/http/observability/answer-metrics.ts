import type { DataSets } from "../../serving/data-set.ts";
import { AnswerCache } from "../../serving/answer-cache.ts";
import type { DataSet } from "../../deps.ts";
import { header, sample } from "../../lib/prometheus.ts";

/**
 * How the API's answer caches answered: from the cache, stale (the previous data version's
 * answer while the new one is recomputed after an import: see answer-cache.ts), or computed.
 * After an import, `stale` rising then stopping shows how long the previous data stood in.
 */
export function answerMetrics(dataSets: DataSets): string {
  let out = header("mehir_answers_total", "counter", "API answers by data set (live, sandbox: test mode), cache and how they were given: hit, stale (previous data version, being recomputed), computed");
  const sets = [{ name: "live", deps: dataSets.live }, ...(dataSets.sandboxData ? [{ name: "sandbox", deps: dataSets.sandboxData }] : [])];
  for (const { name, deps } of sets) {
    for (const cache of answerCaches(deps)) {
      for (const [outcome, n] of Object.entries(cache.counts)) out += sample("mehir_answers_total", { data_set: name, cache: cache.name, outcome }, n);
    }
  }
  out += header("mehir_sandbox_ready", "gauge", "1 once test mode's sandbox data is made (sandbox.sqlite), else 0");
  out += sample("mehir_sandbox_ready", {}, dataSets.sandboxData ? 1 : 0);
  return out;
}

/** A data set's answer caches (the others it holds are not answers: item rows, basket data). */
function answerCaches(dataSet: DataSet): AnswerCache<unknown>[] {
  return Object.values(dataSet.answers).filter((cache): cache is AnswerCache<unknown> => cache instanceof AnswerCache);
}
