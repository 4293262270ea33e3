/**
 * Gives an inflated file's memory back to the allocator now instead of at the next garbage
 * collection: `ArrayBuffer.prototype.transfer(0)` detaches the bytes, and every view of them
 * reads as empty afterwards. Only for a buffer the caller owns whole (see Decompressed.own).
 *
 * @example const raw = decompress(bytes); try { read(raw.bytes); } finally { if (raw.own) release(raw.bytes); }
 */
export function release(bytes: Uint8Array): void {
  const buffer = bytes.buffer;
  if (!(buffer instanceof ArrayBuffer) || bytes.byteOffset !== 0 || bytes.byteLength !== buffer.byteLength || buffer.detached) return;
  buffer.transfer(0);
}

/**
 * A parse thread's last inflated file, kept until the thread inflates the next one and freed
 * just before, so that the next file's buffer is made of the same pages. A thread inflates a
 * new multi-megabyte buffer per file; left to the garbage collector, the freed pages go back to
 * the kernel (the allocator purges free memory after ~10 ms, and a parse worker waits for the
 * loader between files) and the next file faults fresh ones in page by page — 30,000 faults
 * and a third of the parse stage's CPU over the real-format bench's 110 files. Owned by one
 * thread for one run, like its ProductMemo.
 *
 * @example const spent = new SpentBytes(); readPriceFilePacked(bytes, name, memo, { spent });
 */
export class SpentBytes {
  private held: Uint8Array | null = null;

  /** Frees the file kept (call right before inflating the next one). */
  free(): void {
    if (this.held !== null) release(this.held);
    this.held = null;
  }

  /** Keeps a file's inflated bytes (nothing read from the file may hold a view of them) until the next {@link free}. */
  keep(bytes: Uint8Array): void {
    this.free();
    this.held = bytes;
  }
}
