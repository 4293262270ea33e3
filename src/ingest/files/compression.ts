import { nodeZlib } from "./zlib.ts";
import { FileRejectedError } from "./rejected.ts";
import { inflateZipEntry, MAX_DEFLATE_RATIO, readZipEntries } from "./zip.ts";

export type Compression = "gzip" | "zip" | "plain";

/** Default ceiling on decompressed bytes (zip-bomb guard). */
export const DEFAULT_MAX_BYTES = 512 * 2 ** 20;

/**
 * Compression by magic bytes, whatever the file is called (Bina serves zip under `.gz`).
 *
 * @example sniffCompression(new Uint8Array([0x1f, 0x8b, 8])) // "gzip"
 */
export function sniffCompression(bytes: Uint8Array): Compression {
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) return "gzip";
  if (bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && (bytes[2] === 3 || bytes[2] === 5) && (bytes[3] === 4 || bytes[3] === 6)) {
    return "zip";
  }
  return "plain";
}

export interface Decompressed {
  bytes: Uint8Array;
  compression: Compression;
  /** The gzip stream ended early; `bytes` holds what could be inflated. */
  truncated: boolean;
  warnings: string[];
  /** `bytes` is a buffer of its own made by this call (not the input, not a pool's slice): the caller may release it (see release.ts). */
  own: boolean;
}

export interface DecompressOptions {
  /** Refuse files inflating past this many bytes (default 512 MiB). */
  maxBytes?: number;
}

const isXmlName = (name: string) => /\.xml$/i.test(name) || !/\.[a-z0-9]{1,4}$/i.test(name);

/**
 * Gunzips or unzips (by magic bytes) with an output ceiling; plain bytes pass through.
 * A truncated gzip stream yields what was readable and `truncated: true`; a corrupt one throws.
 * A zip yields its XML entry (several: concatenated is never right, so the largest one is taken
 * and the others are named in a warning).
 *
 * @example decompress(Bun.gzipSync(new TextEncoder().encode("<Root/>"))).bytes.length // 7
 */
export function decompress(bytes: Uint8Array, options: DecompressOptions = {}): Decompressed {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const compression = sniffCompression(bytes);
  if (compression === "plain") {
    if (bytes.length > maxBytes) throw new FileRejectedError("too-large", `file is ${bytes.length} bytes, over the ${maxBytes}-byte limit`);
    return { bytes, compression, truncated: false, warnings: [], own: false };
  }
  if (compression === "gzip") return gunzip(bytes, maxBytes);
  const entries = readZipEntries(bytes).filter((e) => !e.name.endsWith("/"));
  const xml = entries.filter((e) => isXmlName(e.name.split("/").pop() ?? e.name));
  const pick = (xml.length ? xml : entries).sort((a, b) => b.size - a.size);
  if (!pick.length) throw new FileRejectedError("empty", "zip archive has no entries");
  const warnings = pick.length > 1 ? [`zip holds ${pick.length} entries; read ${pick[0]!.name}, ignored ${pick.slice(1).map((e) => e.name).join(", ")}`] : [];
  const out = inflateZipEntry(bytes, pick[0]!, maxBytes);
  return { bytes: out.bytes, compression, truncated: false, warnings, own: out.own };
}

function gunzip(bytes: Uint8Array, maxBytes: number): Decompressed {
  if (bytes.length * MAX_DEFLATE_RATIO <= maxBytes) {
    // Fast path (Bun's native gunzip with libdeflate, ~1.8× zlib on the published files; it
    // checks the first member's CRC). It reads only the first gzip member, so the result must
    // match the last trailer's CRC and ISIZE (a second member of the same size would pass the
    // size alone); otherwise (multi-member, truncated, corrupt) zlib below decides.
    try {
      const out = Bun.gunzipSync(bytes as Uint8Array<ArrayBuffer>, { library: "libdeflate" });
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      if (
        bytes.length >= 18 &&
        view.getUint32(bytes.length - 4, true) === out.length % 2 ** 32 &&
        view.getUint32(bytes.length - 8, true) === Bun.hash.crc32(out) >>> 0
      ) {
        return { bytes: out, compression: "gzip", truncated: false, warnings: [], own: true };
      }
    } catch {
      // corrupt or truncated: zlib below tells which
    }
  }
  try {
    return { bytes: nodeZlib().gunzipSync(bytes, { maxOutputLength: maxBytes }), compression: "gzip", truncated: false, warnings: [], own: false };
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ERR_BUFFER_TOO_LARGE") throw new FileRejectedError("too-large", `gzip inflates past the ${maxBytes}-byte limit`);
    if (code !== "Z_BUF_ERROR") throw new FileRejectedError("corrupt-compression", `gzip: ${(error as Error).message}`);
  }
  // Unexpected end of stream: keep what inflates (a cut download still carries whole rows).
  try {
    const out = nodeZlib().gunzipSync(bytes, { maxOutputLength: maxBytes, finishFlush: nodeZlib().constants.Z_SYNC_FLUSH });
    if (!out.length) throw new FileRejectedError("corrupt-compression", "gzip stream is truncated before any data");
    return { bytes: out, compression: "gzip", truncated: true, warnings: ["gzip stream is truncated"], own: false };
  } catch (error) {
    if (error instanceof FileRejectedError) throw error;
    const code = (error as { code?: string }).code;
    if (code === "ERR_BUFFER_TOO_LARGE") throw new FileRejectedError("too-large", `gzip inflates past the ${maxBytes}-byte limit`);
    throw new FileRejectedError("corrupt-compression", `gzip: ${(error as Error).message}`);
  }
}
