import type { ImportPriority } from "../ingest/import-priority.ts";
import type { ExportJob } from "./run.ts";
import type { Manifest } from "./write.ts";
import { workerSpecifier } from "../workers.ts";

type WorkerReply = { kind: "done"; manifest: Manifest | null; pruned: string[] } | { kind: "error"; message: string };

export interface ExportSchedulerOptions extends ExportJob {
  priority: ImportPriority;
  info: (msg: string, fields?: Record<string, unknown>) => void;
  error: (msg: string, fields?: Record<string, unknown>) => void;
}

/**
 * Writes the daily exports of a server, off the request path: each run in a Worker with its own
 * read-only connection (src/exports/export-worker.ts), one run at a time. A request while a run
 * is under way (a second import meanwhile) makes one more run after it, of the data then current.
 *
 * @example const exports = new ExportScheduler({ dbPath, exportsDir, keepDays: 30, priority: "idle", info, error }); data.onChange(() => exports.request());
 */
export class ExportScheduler {
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private worker: Worker | null = null;

  constructor(private readonly options: ExportSchedulerOptions) {}

  /** Asks for an export of the data current when the run starts. */
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

  /** Ends a run under way (its temporary folder is cleaned up by the next run's pruning). */
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
    const { info, error, priority, ...job } = this.options;
    const started = performance.now();
    const worker = new Worker(workerSpecifier("exports/export-worker.ts"));
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
          const m = reply.manifest;
          if (m) {
            info("export: written", {
              date: m.date,
              data_version: m.data_version,
              rows: Object.fromEntries(m.files.map((f) => [f.name, f.rows])),
              bytes: m.files.reduce((a, f) => a + f.bytes, 0),
              ms: Math.round(performance.now() - started),
              pruned: reply.pruned,
            });
          }
        } else error("export: failed", { error: reply.message });
        finish();
      };
      worker.onerror = (event) => {
        error("export: failed", { error: event.message });
        finish();
      };
      worker.postMessage({ ...job, priority });
    });
  }
}
