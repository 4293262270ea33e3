/**
 * Worker entrypoint: evaluates the price alerts after a new data version (evaluation-pass.ts)
 * off the serving thread, at the imports' CPU priority, on its own connections — the prices
 * database read-only, the accounts database for the alerts' states and the queued deliveries.
 * Started by AlertEvaluator, one pass per worker; the compiled binary lists this file as an
 * extra entrypoint (scripts/build.ts).
 */
import { ACCOUNT_MIGRATIONS } from "../db/account-schema.ts";
import { openDatabase } from "../db/open.ts";
import { DataState } from "../data-state.ts";
import { runAtImportPriority } from "../ingest/import-priority.ts";
import { loadRegistry } from "../registry.ts";
import { evaluationPass } from "./evaluation-pass.ts";
import type { EvaluationJob, EvaluationReply } from "./evaluation-job.ts";

declare const self: Worker;

self.onmessage = (event: MessageEvent<EvaluationJob>) => {
  const job = event.data;
  runAtImportPriority(job.priority);
  const stop = new Int32Array(job.stop);
  let reply: EvaluationReply;
  const prices = openDatabase(job.pricesPath, [], { readonly: true });
  const accounts = openDatabase(job.accountsPath, ACCOUNT_MIGRATIONS);
  try {
    const deps = { settings: job.settings, db: { prices, accounts }, registry: loadRegistry(), data: new DataState(prices), now: () => new Date(job.now) };
    reply = { kind: "done", ...evaluationPass(deps, { now: job.now, at: job.at, stopped: () => Atomics.load(stop, 0) === 1 }) };
  } catch (error) {
    reply = { kind: "error", message: String((error as Error)?.stack ?? error) };
  } finally {
    prices.close();
    accounts.close();
  }
  self.postMessage(reply);
};
