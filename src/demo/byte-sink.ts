import type { TextEncoding } from "./text-encoding.ts";

const utf8 = new TextEncoder();
const KEEP_CHUNK = 1 << 20;

// windows-1255 beyond ASCII, for the characters the demo writes (letters, shekel sign, a few marks).
const CP1255: Record<number, number> = {
  0x20aa: 0xa4, // ₪
  0x00d7: 0xaa, // ×
  0x2013: 0x96, // –
  0x2014: 0x97, // —
  0x05f3: 0xd7, // ׳ geresh
  0x05f4: 0xd8, // ״ gershayim
};

/**
 * One growing buffer that a writing thread assembles file after file in: a price file's bytes
 * are compressed and written at once, so the next file can reuse the memory. A fresh buffer per
 * file (hundreds of kilobytes, 518 MB over the demo) was the generation's largest cost — new
 * pages zeroed and faulted in for every file.
 *
 * @example const sink = new ByteSink(); sink.reset(); sink.text("<Root>", "utf8"); write(sink.view())
 */
export class ByteSink {
  private buffer: Uint8Array<ArrayBuffer>;
  private length = 0;
  private kept = new Uint8Array(0);
  private keptUsed = 0;

  constructor(initialBytes = 1 << 20) {
    this.buffer = new Uint8Array(initialBytes);
  }

  /** Starts a new document (the previous view's bytes are overwritten from here on). */
  reset(): this {
    this.length = 0;
    return this;
  }

  bytes(chunk: Uint8Array): this {
    this.reserve(chunk.length);
    this.buffer.set(chunk, this.length);
    this.length += chunk.length;
    return this;
  }

  /** `text` encoded as `encoding`, without a byte-order mark (as encodeBody). */
  text(text: string, encoding: TextEncoding): this {
    if (encoding === "utf16le") {
      this.reserve(text.length * 2);
      const out = this.buffer;
      let at = this.length;
      for (let i = 0; i < text.length; i++) {
        const unit = text.charCodeAt(i);
        out[at++] = unit & 0xff;
        out[at++] = unit >>> 8;
      }
      this.length = at;
    } else if (encoding === "windows-1255") {
      this.reserve(text.length);
      this.length = windows1255Into(text, this.buffer, this.length);
    } else {
      // A UTF-16 unit takes at most 3 bytes of UTF-8.
      this.reserve(text.length * 3);
      this.length += utf8.encodeInto(text, this.buffer.subarray(this.length)).written;
    }
    return this;
  }

  /**
   * A lasting copy of `bytes` (a cached row's block), carved from a larger store: one allocation
   * per 1 MiB rather than per block. The store lives as long as the blocks cut from it.
   */
  keep(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
    if (this.keptUsed + bytes.length > this.kept.length) {
      this.kept = new Uint8Array(Math.max(KEEP_CHUNK, bytes.length));
      this.keptUsed = 0;
    }
    const copy = this.kept.subarray(this.keptUsed, this.keptUsed + bytes.length);
    copy.set(bytes);
    this.keptUsed += bytes.length;
    return copy;
  }

  /** The bytes written since `reset`: valid until the sink is written again. */
  view(): Uint8Array<ArrayBuffer> {
    return this.buffer.subarray(0, this.length);
  }

  private reserve(extra: number): void {
    if (this.length + extra <= this.buffer.length) return;
    let size = Math.max(this.buffer.length * 2, 1 << 16);
    while (size < this.length + extra) size *= 2;
    const bigger = new Uint8Array(size);
    bigger.set(this.buffer.subarray(0, this.length));
    this.buffer = bigger;
  }
}

/** Writes `text` as windows-1255 at `at`; returns the end. '?' for what the code page lacks. */
export function windows1255Into(text: string, out: Uint8Array, at: number): number {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) out[at++] = code;
    else if (code >= 0x05d0 && code <= 0x05ea) out[at++] = code - 0x05d0 + 0xe0;
    else out[at++] = CP1255[code] ?? 0x3f;
  }
  return at;
}
