import type { WorkerReply } from "../lib/worker-runs.ts";
import { workerSpecifier } from "../workers.ts";
import { PROBE_BUDGET_MS } from "./snapshot-probes.ts";

export interface SnapshotCheckJob {
  path: string;
  expectedVersion: number;
  /** How long the probe queries may take (default PROBE_BUDGET_MS). */
  probeBudgetMs?: number;
}

/** The worker's messages: `probing` once the file checks out and the probe queries start. */
export type SnapshotCheckReply = WorkerReply<object> | { kind: "probing" };

/**
 * Runs the snapshot check in a worker thread (snapshot-check-worker.ts: schema, quick_check,
 * data version, then the API's probe queries): a replica keeps answering requests while a
 * multi-GB snapshot's pages are read, and a snapshot whose queries are slow (a recursive view)
 * cannot stall serving. The probes get `probeBudgetMs`; past it the check fails and the worker is
 * ended. Rejects with the reason.
 */
export function checkSnapshotOffThread(job: SnapshotCheckJob): Promise<void> {
  const worker = new Worker(workerSpecifier("cluster/snapshot-check-worker.ts"));
  let budget: ReturnType<typeof setTimeout> | undefined;
  return new Promise<void>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<SnapshotCheckReply>) => {
      const reply = event.data;
      if (reply.kind === "probing") {
        const ms = job.probeBudgetMs ?? PROBE_BUDGET_MS;
        budget = setTimeout(() => reject(new Error(`probe queries took longer than ${ms} ms`)), ms);
      } else if (reply.kind === "done") resolve();
      else reject(new Error(reply.message));
    };
    worker.onerror = (event) => reject(new Error(event.message));
    worker.postMessage(job);
  }).finally(() => {
    clearTimeout(budget);
    worker.terminate();
  });
}
