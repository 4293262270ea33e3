/**
 * Worker entrypoint: writes a snapshot (write-snapshot.ts) off the serving thread, at the imports'
 * CPU priority. Started by SnapshotPublisher; the compiled binary lists this file as an extra
 * entrypoint (src/workers.ts).
 */
import { runAtImportPriority, type ImportPriority } from "../ingest/run/import-priority.ts";
import { writeSnapshot, type SnapshotJob } from "./write-snapshot.ts";

declare const self: Worker;

self.onmessage = async (event: MessageEvent<SnapshotJob & { priority: ImportPriority }>) => {
  const { priority, ...job } = event.data;
  runAtImportPriority(priority);
  try {
    self.postMessage({ kind: "done", ...(await writeSnapshot(job)) });
  } catch (error) {
    self.postMessage({ kind: "error", message: (error as Error).message });
  }
};
