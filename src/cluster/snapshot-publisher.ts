import type { ImportPriority } from "../ingest/import-priority.ts";
import { workerSpecifier } from "../workers.ts";
import type { SnapshotJob, SnapshotResult } from "./write-snapshot.ts";

type WorkerReply = ({ kind: "done" } & SnapshotResult) | { kind: "error"; message: string };

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
export class SnapshotPublisher {
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private worker: Worker | null = null;

  constructor(private readonly options: SnapshotPublisherOptions) {}

  request(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => (this.running = null));
  }

  /** Resolves when no run is under way or asked for. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  stop(): void {
    this.stopped = true;
    this.worker?.terminate();
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      await this.runOnce();
    } while (this.again && !this.stopped);
  }

  private runOnce(): Promise<void> {
    const { info, error, priority, pricesPath, snapshotsDir, keep } = this.options;
    const job: SnapshotJob = { pricesPath, snapshotsDir, keep };
    const started = performance.now();
    const worker = new Worker(workerSpecifier("cluster/snapshot-worker.ts"));
    this.worker = worker;
    return new Promise<void>((resolve) => {
      const finish = () => {
        worker.terminate();
        this.worker = null;
        resolve();
      };
      worker.onmessage = (event: MessageEvent<WorkerReply>) => {
        const reply = event.data;
        if (reply.kind === "done") {
          if (reply.manifest) info("snapshot: published", { data_version: reply.manifest.data_version, bytes: reply.manifest.size, ms: Math.round(performance.now() - started), pruned: reply.pruned });
        } else error("snapshot: failed", { error: reply.message });
        finish();
      };
      worker.onerror = (event) => {
        error("snapshot: failed", { error: event.message });
        finish();
      };
      worker.postMessage({ ...job, priority });
    });
  }
}
