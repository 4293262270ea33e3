/**
 * Worker entrypoint: the reading half of a search index rebuild off the serving thread. Reads
 * the sold products from its own read-only connection to the prices database, analyses them
 * (RowAnalyser) and posts one batch per chunk of rows, then `end`; the serving thread adds them
 * to the index (build.ts). Started by rebuild-batches.ts; the compiled binary lists this file as
 * an extra entrypoint (src/workers.ts).
 */
import { Database } from "bun:sqlite";
import { readProducts } from "./documents.ts";
import { RowAnalyser, transferables } from "./row-analysis.ts";
import type { RebuildJob, RebuildMessage } from "./rebuild-batches.ts";

declare const self: Worker;

const post = (message: RebuildMessage, transfer: ArrayBuffer[] = []) => self.postMessage(message, transfer);

self.onmessage = async (event: MessageEvent<RebuildJob>) => {
  const { path, chunk } = event.data;
  try {
    const db = new Database(path, { readonly: true });
    try {
      db.run("PRAGMA busy_timeout = 10000");
      const analyser = new RowAnalyser();
      for await (const rows of readProducts(db, chunk)) {
        const batch = analyser.analyse(rows);
        post({ kind: "batch", batch }, transferables(batch));
      }
    } finally {
      db.close();
    }
    post({ kind: "end" });
  } catch (error) {
    post({ kind: "failed", message: String((error as Error)?.message ?? error) });
  }
};
