import type { Settings } from "../config.ts";
import { openDatabase } from "../db/open.ts";
import { DataState } from "../data/data-state.ts";
import type { ImportPriority } from "../ingest/run/import-priority.ts";
import { loadRegistry } from "../registry.ts";
import { evaluateBehind, type Outcome } from "./evaluation-pass.ts";

/** What the evaluation worker is asked (evaluation-worker.ts). */
export interface EvaluationJob {
  /** `<data-dir>/prices.sqlite`, opened read-only. */
  pricesPath: string;
  /** `<data-dir>/accounts.sqlite`: the alerts, read (their states are written by the server). */
  accountsPath: string;
  settings: Settings;
  /** The evaluation's time, ms (see PassOptions). */
  now: number;
  priority: ImportPriority;
  /** One Int32: set to 1 by the server to end the pass early (it is stopping). */
  stop: SharedArrayBuffer;
}

/** The alerts evaluated, for the server to write (recordOutcomes), or why the pass failed. */
export type EvaluationReply = { kind: "done"; version: number; outcomes: Outcome[] } | { kind: "error"; message: string };

/** Runs a job on the worker's own connections (the accounts database read-only too: the pass only reads). */
export function runEvaluationJob(job: EvaluationJob): EvaluationReply {
  const stop = new Int32Array(job.stop);
  const prices = openDatabase(job.pricesPath, [], { readonly: true });
  const accounts = openDatabase(job.accountsPath, [], { readonly: true });
  try {
    const deps = { settings: job.settings, db: { prices, accounts }, registry: loadRegistry(), data: new DataState(prices), now: () => new Date(job.now) };
    const outcomes: Outcome[] = [];
    // `at` is the server's to give when it queues the events.
    const version = evaluateBehind(deps, { now: job.now, at: 0, stopped: () => Atomics.load(stop, 0) === 1 }, (batch) => void outcomes.push(...batch));
    return { kind: "done", version, outcomes };
  } catch (error) {
    return { kind: "error", message: String((error as Error)?.stack ?? error) };
  } finally {
    prices.close();
    accounts.close();
  }
}
