/**
 * Worker entrypoint: reads and parses price files for the import (src/ingest/parse-pool.ts),
 * so parsing runs on another core while the importing thread writes SQLite. Price lists come
 * back packed (src/ingest/packed.ts). The compiled binary lists this file as an entrypoint.
 */
import { parseOne } from "./parse-file.ts";
import type { ParseRequest } from "./parse-messages.ts";
import { transferablesOf } from "./packed.ts";

declare const self: Worker;

self.onmessage = async (event: MessageEvent<ParseRequest>) => {
  const reply = await parseOne(event.data, true);
  self.postMessage(reply, reply.ok ? transferablesOf(reply.parsed) : []);
};
