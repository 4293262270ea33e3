import type { ImportReport } from "./report.ts";
import type { WorkerReply, WorkerRequest } from "./worker-messages.ts";
import { workerSpecifier } from "../../workers.ts";

export interface WorkerImportOptions extends WorkerRequest {
  onProgress?: (done: number, total: number, file: string) => void;
  /** The run's data is committed and visible (its report and checkpoint still to come): e.g. `DataState.refresh()`. */
  onCommitted?: (dataVersion: number) => void;
}

/**
 * Runs `importPaths` in a Bun Worker with its own SQLite connection (`dbPath`, usually
 * `<data-dir>/prices.sqlite`), so the calling thread — e.g. `serve` answering requests — never
 * blocks on parsing or writing. Resolves with the run's report; rejects only when the worker
 * itself fails (a run with bad files still resolves, with the files reported). The server
 * notices the new data through `DataState.refresh()` (meta.data_version): polled, or called
 * from `onCommitted` as soon as the commit is made.
 *
 * In the compiled binary the worker must be bundled as an extra entrypoint:
 * `bun build --compile src/main.ts src/ingest/run/import-worker.ts`.
 *
 * @example
 * const report = await runImportInWorker({ dbPath: join(dataDir, PRICES_FILE), paths: [demoDir], origin: "demo", source: "demo" });
 */
export function runImportInWorker(options: WorkerImportOptions): Promise<ImportReport> {
  return startImportWorker().run(options);
}

/** An import worker started ahead of its run (see startImportWorker). */
export interface ImportWorker {
  /** Runs the import (once); as runImportInWorker. */
  run(options: WorkerImportOptions): Promise<ImportReport>;
  /** Ends a worker that will not be given its run. */
  terminate(): void;
}

/**
 * Starts an import worker now and gives it its run later: the worker loads its modules in the
 * meantime (a few hundred milliseconds of one core), e.g. while a first start writes the demo files.
 *
 * @example const importer = startImportWorker(); await writeFiles(); const report = await importer.run({ dbPath, paths, origin: "demo", source: "demo" });
 */
export function startImportWorker(): ImportWorker {
  const worker = new Worker(workerSpecifier("ingest/run/import-worker.ts"));
  // A worker that fails before its run is given (its modules did not load) fails the run.
  let early: string | null = null;
  let failed = (message: string): void => {
    early = message;
  };
  worker.onerror = (event) => failed(event.message);
  return {
    terminate: () => worker.terminate(),
    run(options) {
      const { onProgress, onCommitted, ...request } = options;
      return new Promise<ImportReport>((resolve, reject) => {
        const finish = (settle: () => void) => {
          worker.terminate();
          settle();
        };
        failed = (message) => finish(() => reject(new Error(`import worker: ${message}`)));
        if (early !== null) {
          failed(early);
          return;
        }
        worker.onmessage = (event: MessageEvent<WorkerReply>) => {
          const message = event.data;
          if (message.kind === "progress") onProgress?.(message.done, message.total, message.file);
          else if (message.kind === "committed") onCommitted?.(message.dataVersion);
          else if (message.kind === "done") finish(() => resolve(message.report));
          else finish(() => reject(new Error(`import worker: ${message.message}`)));
        };
        worker.postMessage(request satisfies WorkerRequest);
      });
    },
  };
}
