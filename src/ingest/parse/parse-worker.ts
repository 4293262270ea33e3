/**
 * Worker entrypoint: reads and parses price files for the import (src/ingest/parse/parse-pool.ts),
 * so parsing runs on another core while the importing thread writes SQLite. Price lists come
 * back packed (src/ingest/parse/packed.ts). The compiled binary lists this file as an entrypoint.
 */
import { parseOne } from "./parse-file.ts";
import type { ParseReply, ParseRequest } from "./parse-messages.ts";
import { transferablesOf } from "./packed.ts";
import { ProductMemo } from "../dialects/product-facts.ts";
import { SpentBytes } from "../files/release.ts";

declare const self: Worker;

// A worker lives for one import run (src/ingest/parse/parse-pool.ts): its products are the run's.
const pack = { memo: new ProductMemo(), spent: new SpentBytes() };

async function answer(request: ParseRequest): Promise<void> {
  const reply = await parseOne(request, pack);
  self.postMessage(reply, reply.ok ? transferablesOf(reply.parsed) : []);
}

// One request at a time, in the order asked — the order the importing thread loads the files.
// Started together, the requests' reads would finish in any order and a later file be parsed
// before the one the loader waits for (file 4 of 110 came back after file 63).
// A request that fails past parseOne (which never throws) is still answered: the loader waits
// for every file in order, and a broken chain would leave the later requests unanswered.
let done: Promise<void> = Promise.resolve();
self.onmessage = (event: MessageEvent<ParseRequest>) => {
  const request = event.data;
  done = done
    .then(() => answer(request))
    .catch((error) => self.postMessage({ id: request.id, ok: false, bytes: 0, reason: (error as Error).message, readMs: 0, parseMs: 0 } satisfies ParseReply));
};
