import type { DataSet } from "../../deps.ts";
import type { ImportPriority } from "../../ingest/run/import-priority.ts";
import { log } from "../../lib/log.ts";
import { priceIndexAnswer } from "./off-thread.ts";
import { MAX_HISTORY_MONTHS } from "./service.ts";

/** The answers computed ahead: the default query's scope (every store), without history and with all of it (each `months` is a slice of it). */
export const WARMED_MONTHS: readonly (number | undefined)[] = [undefined, MAX_HISTORY_MONTHS];

/**
 * Computes the national price index after every new data version, in the worker (its own thread
 * and connection, at the imports' CPU priority: only spare CPU by default), so the first client
 * after an import usually finds it cached. One pass at a time; a version that arrives during a
 * pass gets its own pass after it. An in-memory database is never warmed (its index would be
 * computed on the serving thread).
 * @example const warm = warmPriceIndex(dataSets.live, settings.importPriority); await warm.settled()
 */
export function warmPriceIndex(deps: DataSet, priority: ImportPriority): { settled(): Promise<void> } {
  let chain: Promise<void> = Promise.resolve();
  const fileBacked = () => deps.db.prices.filename !== "" && deps.db.prices.filename !== ":memory:";
  const pass = async () => {
    for (const months of WARMED_MONTHS) {
      if (!deps.data.hasData || !fileBacked()) return;
      await priceIndexAnswer(deps, {}, months, priority);
    }
  };
  const request = () => {
    chain = chain.then(pass).catch((error) => log.warn("price index: background computation failed", { error: String(error) }));
  };
  deps.data.onChange(request);
  if (deps.data.hasData) request();
  return { settled: async () => {
    // Passes queued while awaiting are awaited too.
    for (let seen: Promise<void> | null = null; seen !== chain; ) await (seen = chain);
  } };
}
