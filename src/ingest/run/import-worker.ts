/**
 * Worker entrypoint: runs `importPaths` on its own connection to the prices database, so a
 * server's thread never blocks on parsing or SQLite writes. Started by runImportInWorker
 * (src/ingest/run/run-in-worker.ts); the compiled binary lists this file as an extra entrypoint.
 */
import { openDatabase } from "../../db/open.ts";
import { PRICE_MIGRATIONS } from "../../db/price-schema.ts";
import { buildRegistry, loadRegistry } from "../../registry.ts";
import { importPaths } from "./import.ts";
import type { WorkerReply, WorkerRequest } from "./worker-messages.ts";
import { runAtImportPriority } from "./import-priority.ts";

declare const self: Worker;

const reply = (message: WorkerReply) => self.postMessage(message);

self.onmessage = async (event: MessageEvent<WorkerRequest>) => {
  const request = event.data;
  // This thread only (and the parse workers it starts): the server's thread keeps its priority.
  runAtImportPriority(request.priority);
  let db;
  try {
    db = openDatabase(request.dbPath, PRICE_MIGRATIONS);
    const report = await importPaths({
      db,
      registry: request.registry ? buildRegistry(request.registry) : loadRegistry(),
      paths: request.paths,
      origin: request.origin,
      source: request.source,
      maxFileBytes: request.maxFileBytes,
      archiveLimits: request.archiveLimits,
      replaceSource: request.replaceSource,
      historyMonths: request.historyMonths,
      onProgress: (done, total, file) => reply({ kind: "progress", done, total, file }),
      onCommitted: (dataVersion) => reply({ kind: "committed", dataVersion }),
    });
    const files = request.fileReports === "problems" ? report.files.filter((file) => file.status !== "ok") : report.files;
    reply({ kind: "done", report: { ...report, files } });
  } catch (error) {
    reply({ kind: "error", message: (error as Error).message });
  } finally {
    db?.close();
  }
};
