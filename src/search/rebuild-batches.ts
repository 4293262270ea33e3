import type { Database } from "bun:sqlite";
import { log } from "../lib/log.ts";
import { workerSpecifier } from "../workers.ts";
import { readProducts } from "./documents.ts";
import { RowAnalyser, type AnalysedBatch } from "./row-analysis.ts";

/** What the rebuild's worker is asked: the database file to read, in chunks of `chunk` rows. */
export interface RebuildJob {
  path: string;
  chunk: number;
}

/** What it posts: a batch per chunk, then `end`; or why it failed. */
export type RebuildMessage = { kind: "batch"; batch: AnalysedBatch } | { kind: "end" } | { kind: "failed"; message: string };

/**
 * The analysed batches of a rebuild, in product order. From a database file, a worker reads and
 * analyses them on its own connection (rebuild-worker.ts) while this thread adds them to the
 * index: at 100,000 products the reading and analysis took over a second of the serving
 * thread's time. An in-memory database (tests), or a worker that fails before its
 * first batch (a binary without it), is read here, `chunk` rows at a time between turns of the
 * event loop; a worker failing later fails the build.
 *
 * @example for await (const batch of analysedBatches(db, { chunk: 128, workerChunk: 1024 })) count += batch.productIds.length
 */
export async function* analysedBatches(db: Database, options: { chunk: number; workerChunk: number; signal?: AbortSignal }): AsyncGenerator<AnalysedBatch> {
  const path = db.filename;
  if (path === "" || path === ":memory:") return yield* analysedHere(db, options.chunk);
  const worker = new Worker(workerSpecifier("search/rebuild-worker.ts"));
  const queue: RebuildMessage[] = [];
  let wake: (() => void) | null = null;
  const receive = (message: RebuildMessage) => {
    queue.push(message);
    wake?.();
    wake = null;
  };
  worker.onmessage = (event: MessageEvent<RebuildMessage>) => receive(event.data);
  worker.onerror = (event) => receive({ kind: "failed", message: event.message });
  // Stopped (the server closes its database): the worker ends now, not after its last batch.
  const stop = () => {
    worker.terminate();
    wake?.();
    wake = null;
  };
  options.signal?.addEventListener("abort", stop, { once: true });
  try {
    worker.postMessage({ path, chunk: options.workerChunk } satisfies RebuildJob);
    let delivered = 0;
    for (;;) {
      if (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      options.signal?.throwIfAborted();
      const message = queue.shift()!;
      if (message.kind === "batch") {
        delivered++;
        yield message.batch;
      } else if (message.kind === "end") {
        return;
      } else if (delivered === 0) {
        log.warn("search index worker failed; reading on the serving thread", { error: message.message });
        return yield* analysedHere(db, options.chunk);
      } else {
        throw new Error(`search index worker failed: ${message.message}`);
      }
    }
  } finally {
    options.signal?.removeEventListener("abort", stop);
    worker.terminate();
  }
}

/** The batches read and analysed on this thread. */
async function* analysedHere(db: Database, chunk: number): AsyncGenerator<AnalysedBatch> {
  const analyser = new RowAnalyser();
  for await (const rows of readProducts(db, chunk)) yield analyser.analyse(rows);
}
