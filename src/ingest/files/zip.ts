import { nodeZlib } from "./zlib.ts";
import { FileRejectedError } from "./rejected.ts";

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  /** Offset of the entry's local header. */
  offset: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** Deflate cannot expand data more than ~1032:1, so a small enough input cannot inflate past a limit: only then may a native call without an output ceiling run. */
export const MAX_DEFLATE_RATIO = 1032;

/**
 * Lists a zip archive's entries from its central directory (no data is inflated).
 *
 * @example readZipEntries(bytes).map((e) => e.name) // ["PriceFull7290058159628-001-202211021214.xml"]
 */
export function readZipEntries(bytes: Uint8Array): ZipEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // The end-of-central-directory record sits in the last 22 + 65535 (comment) bytes.
  let eocd = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new FileRejectedError("corrupt-compression", "zip: no end of central directory (truncated archive?)");
  const count = view.getUint16(eocd + 10, true);
  let at = view.getUint32(eocd + 16, true);
  const entries: ZipEntry[] = [];
  const utf8 = new TextDecoder();
  for (let n = 0; n < count; n++) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== CENTRAL) {
      throw new FileRejectedError("corrupt-compression", "zip: damaged central directory");
    }
    const method = view.getUint16(at + 10, true);
    const compressedSize = view.getUint32(at + 20, true);
    const size = view.getUint32(at + 24, true);
    const nameLen = view.getUint16(at + 28, true);
    const extraLen = view.getUint16(at + 30, true);
    const commentLen = view.getUint16(at + 32, true);
    const offset = view.getUint32(at + 42, true);
    const name = utf8.decode(bytes.subarray(at + 46, at + 46 + nameLen));
    entries.push({ name, method, compressedSize, size, offset });
    at += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

/**
 * Where an entry lies in the archive: from its local header to the end of its compressed data.
 * @example entrySpan(bytes, entry) // { start: 0, dataStart: 74, end: 1290 }
 */
export function entrySpan(bytes: Uint8Array, entry: ZipEntry): { start: number; dataStart: number; end: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (entry.offset + 30 > bytes.length || view.getUint32(entry.offset, true) !== LOCAL) {
    throw new FileRejectedError("corrupt-compression", `zip: damaged local header of ${entry.name}`);
  }
  const dataStart = entry.offset + 30 + view.getUint16(entry.offset + 26, true) + view.getUint16(entry.offset + 28, true);
  return { start: entry.offset, dataStart, end: dataStart + entry.compressedSize };
}

/**
 * Refuses an archive whose entries share bytes: two central-directory records naming one local
 * header, or overlapping compressed data. A zip writer never makes one; a "zip bomb" does, to
 * have one small compressed stream unpacked many times over.
 * @example assertNoOverlap(bytes, readZipEntries(bytes)) // throws FileRejectedError("unsupported-archive", …)
 */
export function assertNoOverlap(bytes: Uint8Array, entries: ZipEntry[]): void {
  const spans = entries.map((entry) => ({ entry, ...entrySpan(bytes, entry) })).sort((a, b) => a.start - b.start);
  for (let i = 1; i < spans.length; i++) {
    const before = spans[i - 1]!;
    const span = spans[i]!;
    if (span.start < before.end || span.start === before.start) {
      throw new FileRejectedError("unsupported-archive", `zip: entries ${before.entry.name} and ${span.entry.name} overlap (share compressed data): archive refused`);
    }
  }
}

/**
 * Inflates one entry (stored or deflate), refusing more than `maxBytes` of output.
 *
 * @example inflateZipEntry(bytes, readZipEntries(bytes)[0], 512 * 2 ** 20)
 */
export function inflateZipEntry(bytes: Uint8Array, entry: ZipEntry, maxBytes: number): { bytes: Uint8Array; own: boolean } {
  const { dataStart: start } = entrySpan(bytes, entry);
  const data = bytes.subarray(start, start + entry.compressedSize);
  if (entry.size > maxBytes) throw new FileRejectedError("too-large", `zip entry ${entry.name} is ${entry.size} bytes, over the ${maxBytes}-byte limit`);
  if (entry.method === 0) return { bytes: data, own: false };
  if (entry.method !== 8) throw new FileRejectedError("unsupported-archive", `zip: compression method ${entry.method} of ${entry.name}`);
  if (data.length * MAX_DEFLATE_RATIO <= maxBytes) {
    // Fast path (libdeflate in one native call; node:zlib's wrapper copies chunk by chunk):
    // taken only when the output cannot pass the limit and matches the size the directory
    // states; otherwise (damaged, ZIP64 sizes) zlib below decides.
    try {
      const out = Bun.inflateSync(data as Uint8Array<ArrayBuffer>, { library: "libdeflate" });
      if (out.length === entry.size) return { bytes: out, own: true };
    } catch {
      // corrupt: zlib below tells why
    }
  }
  try {
    // node:zlib's Buffer may share a pool: not the caller's to release.
    return { bytes: nodeZlib().inflateRawSync(data, { maxOutputLength: maxBytes }), own: false };
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") {
      throw new FileRejectedError("too-large", `zip entry ${entry.name} inflates past the ${maxBytes}-byte limit`);
    }
    throw new FileRejectedError("corrupt-compression", `zip: ${entry.name}: ${(error as Error).message}`);
  }
}
