import { readFileSync } from "node:fs";
import { readPriceFile, readPriceFilePacked } from "./read-file.ts";
import type { ParseReply, ParseRequest } from "./parse-messages.ts";
import type { ProductMemo } from "../dialects/product-facts.ts";
import type { SpentBytes } from "../files/release.ts";

/**
 * Reads and parses one file — the work a parse worker does, also run inline for small imports.
 * Never throws: a file that cannot be read or parsed comes back as `ok: false` with the reason.
 * `pack`: price lists come back packed (src/ingest/parse/packed.ts), reusing the products this
 * thread already read during the run (its memo); the thread's inflated files are recycled through `spent`.
 * @example await parseOne({ id: 1, path, fileName: "PriceFull…gz", maxBytes: 256 * 2 ** 20 }, false)
 */
export async function parseOne(request: ParseRequest, pack: false | { memo: ProductMemo; spent: SpentBytes }): Promise<ParseReply> {
  const started = performance.now();
  let bytes: Uint8Array;
  try {
    // Read at once, not awaited: a parse thread takes its files one at a time (parse-worker.ts), and
    // an awaited read left it idle for the thread pool's hop (≈ 0.8 ms a file, the whole read).
    bytes = readFileSync(request.path);
  } catch (error) {
    return { id: request.id, ok: false, bytes: 0, reason: (error as Error).message, readMs: performance.now() - started, parseMs: 0 };
  }
  const read = performance.now();
  try {
    const options = { maxBytes: request.maxBytes, spent: pack ? pack.spent : undefined };
    const result = pack ? readPriceFilePacked(bytes, request.fileName, pack.memo, options) : readPriceFile(bytes, request.fileName, options);
    return {
      id: request.id,
      ok: true,
      bytes: bytes.length,
      name: result.name,
      parsed: result.parsed,
      partial: result.partial,
      warnings: result.warnings,
      readMs: read - started,
      parseMs: performance.now() - read,
    };
  } catch (error) {
    return { id: request.id, ok: false, bytes: bytes.length, reason: (error as Error).message, readMs: read - started, parseMs: performance.now() - read };
  }
}
