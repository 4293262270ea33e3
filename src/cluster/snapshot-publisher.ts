import type { ImportPriority } from "../ingest/run/import-priority.ts";
import { WorkerRuns } from "../lib/worker-runs.ts";
import type { SnapshotJob, SnapshotResult } from "./write-snapshot.ts";

type Log = (msg: string, fields?: Record<string, unknown>) => void;

export interface SnapshotPublisherOptions extends SnapshotJob {
  priority: ImportPriority;
  info: Log;
  error: Log;
}

/**
 * A primary's snapshots, written off the request path: each run in a Worker with its own
 * read-only connection (snapshot-worker.ts), one run at a time; a request during a run (another
 * import meanwhile) makes one more run after it, of the data then current.
 *
 * @example const publisher = new SnapshotPublisher({ pricesPath, snapshotsDir, keep: 3, priority: "idle", info, error }); data.onChange(() => publisher.request());
 */
export class SnapshotPublisher extends WorkerRuns<SnapshotResult> {
  constructor(options: SnapshotPublisherOptions) {
    const { info, error, priority, pricesPath, snapshotsDir, keep } = options;
    const job: SnapshotJob = { pricesPath, snapshotsDir, keep };
    super({
      worker: "cluster/snapshot-worker.ts",
      job: () => ({ ...job, priority }),
      done: ({ manifest, pruned }, ms) => {
        if (manifest) info("snapshot: published", { data_version: manifest.data_version, bytes: manifest.size, ms, pruned });
      },
      failed: (message) => error("snapshot: failed", { error: message }),
    });
  }
}
