import { unfilledBytes } from "./gzip-answer.ts";

/**
 * One buffer that large answers are written into, request after request, instead of a fresh one
 * each: a fresh buffer of tens or hundreds of KB is new memory the kernel maps page by page (and
 * the garbage collector frees later), which cost a batch answer more than writing it. Reuse is
 * safe only because the bytes are copied out at once: the writer makes the Response before it
 * returns, and `new Response(bytes)` copies its bytes when made (test/http/prebuilt/answer-buffer.test.ts
 * checks that Bun does), before any other answer is written here. Small answers (under `reuseFrom`) and huge ones
 * (over `keepUpTo`, not held after) get a buffer of their own.
 *
 * @example
 * const out = buffer.take(size); // write every byte of out, then at once:
 * return buffer.holds(out) ? new Response(out, { headers }) : out;
 */
export class AnswerBuffer {
  private buffer: Uint8Array = new Uint8Array(0);

  constructor(
    readonly reuseFrom = 16 * 1024,
    readonly keepUpTo = 4 * 1024 * 1024,
  ) {}

  /** `size` bytes to write, not zero-filled: the shared buffer's first ones, or a buffer of their own. */
  take(size: number): Uint8Array {
    if (size < this.reuseFrom || size > this.keepUpTo) return unfilledBytes(size);
    if (this.buffer.length < size) this.buffer = unfilledBytes(Math.min(this.keepUpTo, Math.max(size, 2 * this.buffer.length)));
    return this.buffer.subarray(0, size);
  }

  /** Whether `bytes` are the shared buffer's (to be copied out before the next take). */
  holds(bytes: Uint8Array): boolean {
    return bytes.buffer === this.buffer.buffer;
  }
}
