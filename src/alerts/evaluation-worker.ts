/**
 * Worker entrypoint: evaluates the price alerts after a new data version (evaluation-job.ts)
 * off the serving thread, at the imports' CPU priority, on its own connections. Kept between
 * passes by EvaluationThread: each message is one pass, answered with its outcomes; the compiled
 * binary lists this file as an extra entrypoint (scripts/build.ts).
 *
 * The pass's modules are imported only once the thread's priority is lowered: loading them
 * (transpiling and evaluating some 50 modules, zod's schemas, the registry) took 0.2–0.7 s of CPU
 * on a 2-core machine, which at normal priority competed with serving — the first evaluation
 * after a start showed in the API's p99 (bench/alerts.ts).
 */
import { runAtImportPriority } from "../ingest/run/import-priority.ts";
import type { EvaluationJob, EvaluationReply } from "./evaluation-job.ts";

declare const self: Worker;

/** The first job lowers the thread's priority (threads keep theirs), then every job is one pass. */
self.onmessage = (first: MessageEvent<EvaluationJob>) => {
  runAtImportPriority(first.data.priority);
  self.onmessage = pass;
  void pass(first);
};

async function pass(event: MessageEvent<EvaluationJob>): Promise<void> {
  let reply: EvaluationReply;
  try {
    const { runEvaluationJob } = await import("./evaluation-job.ts");
    reply = runEvaluationJob(event.data);
  } catch (error) {
    reply = { kind: "error", message: String((error as Error)?.stack ?? error) };
  }
  self.postMessage(reply);
}
