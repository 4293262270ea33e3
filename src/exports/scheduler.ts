import type { ImportPriority } from "../ingest/run/import-priority.ts";
import { WorkerRuns } from "../lib/worker-runs.ts";
import type { ExportJob } from "./run.ts";
import type { Manifest } from "./write.ts";

export interface ExportSchedulerOptions extends ExportJob {
  priority: ImportPriority;
  info: (msg: string, fields?: Record<string, unknown>) => void;
  error: (msg: string, fields?: Record<string, unknown>) => void;
}

/**
 * Writes the daily exports of a server, off the request path: each run in a Worker with its own
 * read-only connection (src/exports/export-worker.ts), one run at a time. A request while a run
 * is under way (a second import meanwhile) makes one more run after it, of the data then current.
 * `stop()` ends a run under way (its temporary folder is cleaned up by the next run's pruning).
 *
 * @example const exports = new ExportScheduler({ dbPath, exportsDir, keepDays: 30, priority: "idle", info, error }); data.onChange(() => exports.request());
 */
export class ExportScheduler extends WorkerRuns<{ manifest: Manifest | null; pruned: string[] }> {
  constructor(options: ExportSchedulerOptions) {
    const { info, error, priority, ...job } = options;
    super({
      worker: "exports/export-worker.ts",
      job: () => ({ ...job, priority }),
      done: ({ manifest: m, pruned }, ms) => {
        if (!m) return;
        info("export: written", {
          date: m.date,
          data_version: m.data_version,
          rows: Object.fromEntries(m.files.map((f) => [f.name, f.rows])),
          bytes: m.files.reduce((a, f) => a + f.bytes, 0),
          ms,
          pruned,
        });
      },
      failed: (message) => error("export: failed", { error: message }),
    });
  }
}
