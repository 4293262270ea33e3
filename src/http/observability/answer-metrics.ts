import type { AppDeps } from "../../app.ts";
import { AnswerCache } from "../answer-cache.ts";
import { header, sample } from "./prometheus.ts";

/**
 * How the API's answer caches answered: from the cache, stale (the previous data version's
 * answer while the new one is recomputed after an import: see answer-cache.ts), or computed.
 * After an import, `stale` rising then stopping shows how long the previous data stood in.
 */
export function answerMetrics(deps: AppDeps): string {
  let out = header("mehir_answers_total", "counter", "API answers by cache and how they were given: hit, stale (previous data version, being recomputed), computed");
  for (const cache of AnswerCache.ofApp(deps)) {
    for (const [outcome, n] of Object.entries(cache.counts)) out += sample("mehir_answers_total", { cache: cache.name, outcome }, n);
  }
  return out;
}
