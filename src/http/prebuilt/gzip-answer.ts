import { constants, crc32, deflateRawSync } from "node:zlib";
import { crc32CombineShifted, crc32Shift } from "./crc32-combine.ts";

/**
 * gzip for cached answers without compressing on every request. An answer is
 * `{"data":<cached bytes>,"meta":<per request>}`: the cached part is deflated once, ending on a
 * sync flush (byte-aligned, stream left open), and each request appends its small `meta` as a
 * final *stored* block (raw bytes, no compression) and the gzip trailer, whose CRC-32 continues
 * from the cached part's. The result is one ordinary gzip member (RFC 1951/1952) that any client
 * inflates.
 *
 * @example
 * const head = compressHead(bytesOf('{"data":[1,2,3]'));
 * gzipWithTail(head, bytesOf(',"meta":{}}')) // gunzips to {"data":[1,2,3],"meta":{}}
 */
export interface CompressedHead {
  /**
   * Raw deflate of the head, ending with a sync flush (00 00 ff ff): one buffer, or for a joined
   * head its parts' buffers in order (written straight into the answer, not copied together first).
   */
  readonly deflated: readonly Uint8Array[];
  /** CRC-32 of the uncompressed head. */
  readonly crc: number;
  /** Uncompressed length of the head. */
  readonly length: number;
  /** crc32Shift(length), made once: a joined head combines its parts' CRCs with it (joinHeads). */
  readonly shift: number;
}

/** Heads larger than this are deflated at level 1: they are rare and level 6 costs ms there. */
const FAST_ABOVE = 256 * 1024;

/**
 * A buffer whose every byte the caller writes, not zero-filled first (and never from Buffer's
 * shared pool: it is sent as is). For answers of hundreds of KB, the zero-filling of a fresh
 * buffer cost more than the copy into it.
 */
export function unfilledBytes(size: number): Uint8Array {
  return Buffer.allocUnsafeSlow(size);
}

/** Deflates the constant part of an answer once. */
export function compressHead(head: Uint8Array): CompressedHead {
  const level = head.length > FAST_ABOVE ? 1 : 6;
  const deflated = deflateRawSync(head, { level, finishFlush: constants.Z_SYNC_FLUSH });
  return { deflated: [new Uint8Array(deflated.buffer, deflated.byteOffset, deflated.length)], crc: crc32(head), length: head.length, shift: crc32Shift(head.length) };
}

/** How many stored deflate blocks `length` bytes take (at least one: an empty block still ends). */
function storedBlockCount(length: number): number {
  return Math.max(1, Math.ceil(length / STORED_MAX));
}

/**
 * Writes `bytes` into `out` at `at` as stored deflate blocks — byte-aligned, as after a sync flush:
 * BFINAL (on the last block when `final`), BTYPE 00, then LEN and its one's complement,
 * little-endian. Returns where the blocks end.
 */
function writeStoredBlocks(out: Uint8Array, at: number, bytes: Uint8Array, final: boolean): number {
  const blocks = storedBlockCount(bytes.length);
  for (let b = 0, from = 0; b < blocks; b++) {
    const size = Math.min(STORED_MAX, bytes.length - from);
    out[at] = final && b === blocks - 1 ? 1 : 0;
    out[at + 1] = size & 0xff;
    out[at + 2] = size >>> 8;
    out[at + 3] = ~size & 0xff;
    out[at + 4] = (~size >>> 8) & 0xff;
    // One block (a request's meta): the bytes as they are, no view made.
    out.set(blocks === 1 ? bytes : bytes.subarray(from, from + size), at + 5);
    at += 5 + size;
    from += size;
  }
  return at;
}

/** Bytes as non-final stored deflate blocks (byte-aligned, as after a sync flush). */
function storedBlocks(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(storedBlockCount(bytes.length) * 5 + bytes.length);
  writeStoredBlocks(out, 0, bytes, false);
  return out;
}

/**
 * A compressed head made of parts without compressing them again: parts already deflated (each
 * one its own sync-flushed raw deflate, as compressHead makes them; a deflate stream may continue
 * with a block that refers to nothing before it) are copied, small plain parts go in as stored
 * blocks. The CRC is combined from the parts' own (crc32Combine, with each part's crc32Shift made
 * once with it): the deflated parts' text is not read again. For answers assembled from cached
 * answers (the batch of /prices/ answers: see HeadJoiner).
 *
 * @example joinHeads([bytesOf("["), compressHead(a), bytesOf("]")])
 */
export function joinHeads(parts: (Uint8Array | CompressedHead)[]): CompressedHead {
  const joiner = new HeadJoiner();
  for (const part of parts) {
    if (part instanceof Uint8Array) joiner.plain(part);
    else joiner.head(part);
  }
  return joiner.joined();
}

/**
 * joinHeads part by part, with a third kind of part: one deflated buffer given with its text's
 * CRC, length and crc32Shift (a cached answer's own, kept as plain fields: a batch joins 100 of
 * them, and each object between the answer and its bytes was a memory read the batch waited on).
 */
export class HeadJoiner {
  private readonly deflated: Uint8Array[] = [];
  private crc = 0;
  private length = 0;

  /** Plain bytes, as stored blocks. */
  plain(bytes: Uint8Array): void {
    this.deflated.push(storedBlocks(bytes));
    this.crc = crc32(bytes, this.crc);
    this.length += bytes.length;
  }

  /** A compressed head (compressHead's, or a join's), its chunks in order. */
  head(part: CompressedHead): void {
    for (const chunk of part.deflated) this.deflated.push(chunk);
    this.crc = crc32CombineShifted(this.crc, part.crc, part.shift);
    this.length += part.length;
  }

  /** One deflated buffer of `length` bytes of text whose CRC-32 is `crc` (`shift`: crc32Shift(length)). */
  chunk(deflated: Uint8Array, crc: number, length: number, shift: number): void {
    this.deflated.push(deflated);
    this.crc = crc32CombineShifted(this.crc, crc, shift);
    this.length += length;
  }

  joined(): CompressedHead {
    return { deflated: this.deflated, crc: this.crc >>> 0, length: this.length, shift: crc32Shift(this.length) };
  }
}

// Magic, deflate, no flags, no mtime, no extra flags, OS unknown.
const GZIP_HEADER = new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);
const STORED_MAX = 0xffff;

/**
 * A gzip member of the compressed head followed by `tail` (sent as stored blocks, the last final),
 * written into `allocate(size)` (default: a buffer of its own; see AnswerBuffer).
 */
export function gzipWithTail(head: CompressedHead, tail: Uint8Array, allocate: (size: number) => Uint8Array = unfilledBytes): Uint8Array {
  const blocks = storedBlockCount(tail.length);
  let deflatedLength = 0;
  for (const chunk of head.deflated) deflatedLength += chunk.length;
  const out = allocate(GZIP_HEADER.length + deflatedLength + blocks * 5 + tail.length + 8);
  out.set(GZIP_HEADER, 0);
  let at = GZIP_HEADER.length;
  for (const chunk of head.deflated) {
    out.set(chunk, at);
    at += chunk.length;
  }
  at = writeStoredBlocks(out, at, tail, true);
  // Written byte by byte: a DataView over `out.buffer` would make the runtime materialise the
  // buffer object of every answer (measured: 5 % of a cached answer's time).
  writeUint32LE(out, at, crc32(tail, head.crc) >>> 0);
  writeUint32LE(out, at + 4, (head.length + tail.length) >>> 0);
  return out;
}

/** `value` as 4 little-endian bytes at `at`. */
function writeUint32LE(out: Uint8Array, at: number, value: number): void {
  out[at] = value & 0xff;
  out[at + 1] = (value >>> 8) & 0xff;
  out[at + 2] = (value >>> 16) & 0xff;
  out[at + 3] = value >>> 24;
}

/**
 * Whether a request's Accept-Encoding admits gzip (RFC 9110 §12.5.3: `gzip` or `*` with a
 * non-zero q; `x-gzip` as an alias).
 *
 * @example acceptsGzip("gzip, deflate, br") // true
 * @example acceptsGzip("gzip;q=0, identity") // false
 */
export function acceptsGzip(header: string | null): boolean {
  if (!header) return false;
  // Clients send the same header on every request: the last answer is kept.
  if (header === last.header) return last.accepts;
  const accepts = parseAcceptsGzip(header);
  last = { header, accepts };
  return accepts;
}

let last = { header: "", accepts: false };

function parseAcceptsGzip(header: string): boolean {
  let star: boolean | null = null;
  for (const part of header.split(",")) {
    const [name = "", ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const allowed = q === undefined || Number(q.slice(2)) > 0;
    const coding = name.trim();
    if (coding === "gzip" || coding === "x-gzip") return allowed;
    if (coding === "*") star = allowed;
  }
  return star === true;
}
