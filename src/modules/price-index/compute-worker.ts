/**
 * Worker entrypoint: the price index of one scope (with its 24-month history when asked) computed
 * off the serving thread, on its own read-only connection to the prices database and inside one
 * read transaction, so every read sees the one data version it reports. Started by
 * off-thread.ts; the compiled binary lists this file as an extra entrypoint (src/workers.ts).
 */
import { Database } from "bun:sqlite";
import { DataState } from "../../data/data-state.ts";
import { dataTables } from "../../pricing/data-tables.ts";
import { runAtImportPriority } from "../../ingest/run/import-priority.ts";
import { fullPriceIndex, type IndexScope } from "./service.ts";
import type { IndexJob, IndexJobResult } from "./off-thread.ts";

declare const self: Worker;

self.onmessage = (event: MessageEvent<IndexJob>) => {
  const { path, scope, withHistory, now, priority } = event.data;
  // This thread only (one worker per computation): the serving thread keeps its priority.
  runAtImportPriority(priority);
  let result: IndexJobResult;
  try {
    const db = new Database(path, { readonly: true, strict: true });
    try {
      db.run("PRAGMA busy_timeout = 10000");
      db.run("BEGIN");
      const data = new DataState(db);
      data.refresh();
      const full = fullPriceIndex({ db: { prices: db }, tables: dataTables(data), now: () => new Date(now) }, scope as IndexScope, withHistory);
      db.run("COMMIT");
      result = { kind: "done", version: data.current.version, full };
    } finally {
      db.close();
    }
  } catch (error) {
    result = { kind: "failed", message: (error as Error).message };
  }
  self.postMessage(result);
};
