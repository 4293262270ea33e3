/**
 * Worker entrypoint: reads and parses price files for the import (src/ingest/parse-pool.ts),
 * so parsing runs on another core while the importing thread writes SQLite. Price lists come
 * back packed (src/ingest/packed.ts). The compiled binary lists this file as an entrypoint.
 */
import { parseOne } from "./parse-file.ts";
import type { ParseRequest } from "./parse-messages.ts";
import { transferablesOf } from "./packed.ts";
import { ProductMemo } from "./dialects/product-facts.ts";
import { SpentBytes } from "./files/release.ts";

declare const self: Worker;

// A worker lives for one import run (src/ingest/parse-pool.ts): its products are the run's.
const pack = { memo: new ProductMemo(), spent: new SpentBytes() };

self.onmessage = async (event: MessageEvent<ParseRequest>) => {
  const reply = await parseOne(event.data, pack);
  self.postMessage(reply, reply.ok ? transferablesOf(reply.parsed) : []);
};
