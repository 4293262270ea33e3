import { describe, expect, test } from "bun:test";
import { AnswerBuffer } from "../../../src/http/prebuilt/answer-buffer.ts";

describe("AnswerBuffer", () => {
  test("new Response(bytes) copies the bytes when made — what reusing the buffer relies on", async () => {
    const bytes = new Uint8Array(64 * 1024).fill(7);
    const response = new Response(bytes);
    bytes.fill(9); // the next answer written into the same buffer
    const sent = new Uint8Array(await response.arrayBuffer());
    expect(sent.length).toBe(bytes.length);
    expect(sent.every((b) => b === 7)).toBe(true);
  });

  test("sizes from reuseFrom to keepUpTo share one buffer; smaller and larger ones get their own", () => {
    const buffer = new AnswerBuffer(1024, 8192);
    const first = buffer.take(2000);
    const second = buffer.take(3000); // grows: a new shared buffer
    const third = buffer.take(1500);
    expect(buffer.holds(second) && buffer.holds(third)).toBe(true);
    expect(third.buffer).toBe(second.buffer);
    expect(buffer.holds(first)).toBe(false); // the outgrown one is no longer shared
    expect([first.length, second.length, third.length]).toEqual([2000, 3000, 1500]);
    const small = buffer.take(100);
    const huge = buffer.take(10_000);
    expect(buffer.holds(small) || buffer.holds(huge)).toBe(false);
    expect([small.length, huge.length]).toEqual([100, 10_000]);
    const largest = buffer.take(8192); // keepUpTo itself is still shared
    expect(buffer.holds(largest) && largest.length === 8192).toBe(true);
  });
});
