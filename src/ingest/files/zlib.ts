import type * as Zlib from "node:zlib";

let zlib: typeof Zlib | undefined;

/**
 * node:zlib, loaded on first use (as import-priority loads bun:ffi): loading it is ≈ 25–30 ms of
 * a parse thread's start-up, which an import waits for, and the published gzip files are inflated
 * by Bun's libdeflate (compression.ts) — zlib only reads zip entries and damaged, cut or
 * multi-member gzip.
 * @example nodeZlib().inflateRawSync(data, { maxOutputLength: 2 ** 20 })
 */
export function nodeZlib(): typeof Zlib {
  zlib ??= require("node:zlib") as typeof Zlib;
  return zlib;
}
