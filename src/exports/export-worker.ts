/**
 * Worker entrypoint: writes a daily export (src/exports/run.ts) off the serving thread, at the
 * imports' CPU priority. Started by ExportScheduler; the compiled binary lists this file as an
 * extra entrypoint.
 */
import { runAtImportPriority, type ImportPriority } from "../ingest/run/import-priority.ts";
import { runExport, type ExportJob } from "./run.ts";

declare const self: Worker;

self.onmessage = async (event: MessageEvent<ExportJob & { priority: ImportPriority }>) => {
  const { priority, ...job } = event.data;
  runAtImportPriority(priority);
  try {
    self.postMessage({ kind: "done", ...(await runExport(job)) });
  } catch (error) {
    self.postMessage({ kind: "error", message: (error as Error).message });
  }
};
