import type { WorkerReply } from "../worker-runs.ts";
import { workerSpecifier } from "../workers.ts";

export interface SnapshotCheckJob {
  path: string;
  expectedVersion: number;
}

/**
 * Runs checkSnapshotFile in a worker thread: a replica keeps answering requests while a
 * multi-GB snapshot's pages are read. Rejects with the check's reason.
 */
export function checkSnapshotOffThread(job: SnapshotCheckJob): Promise<void> {
  const worker = new Worker(workerSpecifier("cluster/snapshot-check-worker.ts"));
  return new Promise<void>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<WorkerReply<object>>) => {
      const reply = event.data;
      if (reply.kind === "done") resolve();
      else reject(new Error(reply.message));
    };
    worker.onerror = (event) => reject(new Error(event.message));
    worker.postMessage(job);
  }).finally(() => worker.terminate());
}
