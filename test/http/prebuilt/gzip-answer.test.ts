import { describe, expect, test, setDefaultTimeout } from "bun:test";
import { gunzipSync } from "node:zlib";
import { spawnSync } from "node:child_process";
import { acceptsGzip, compressHead, gzipWithTail } from "../../../src/http/prebuilt/gzip-answer.ts";

// Starts processes, servers or workers: sized for a loaded 2-core machine, not the 5 s default.
setDefaultTimeout(180_000);

const utf8 = (text: string) => new TextEncoder().encode(text);
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("gzip with a precompressed head", () => {
  const head = utf8(`{"data":${JSON.stringify(Array.from({ length: 40 }, (_, i) => ({ chain: `שופרסל ${i}`, price: "12.90" })))}`);

  test("head + tail gunzip to the concatenation, Hebrew intact, and compress the head", () => {
    const compressed = compressHead(head);
    const tail = utf8(',"meta":{"request_id":"r-1","note":"חלב"}}');
    const gz = gzipWithTail(compressed, tail);
    expect(text(gunzipSync(gz))).toBe(text(head) + text(tail));
    expect(JSON.parse(text(gunzipSync(gz))).meta.note).toBe("חלב");
    expect(gz.length).toBeLessThan(head.length / 3);
  });

  test("one compressed head serves many tails; an empty tail and a tail over one stored block (64 KiB) too", () => {
    const compressed = compressHead(head);
    for (const tail of ["", ',"meta":{}}', "x".repeat(0xffff), "y".repeat(0xffff + 1), "z".repeat(3 * 0xffff + 17)]) {
      expect(text(gunzipSync(gzipWithTail(compressed, utf8(tail))))).toBe(text(head) + tail);
    }
  });

  test("a large head (level 1 above 256 KiB) round-trips", () => {
    const big = utf8(JSON.stringify(Array.from({ length: 20_000 }, (_, i) => ({ store: i, price: (i % 97) + 0.5 }))));
    expect(big.length).toBeGreaterThan(256 * 1024);
    expect(text(gunzipSync(gzipWithTail(compressHead(big), utf8("!"))))).toBe(text(big) + "!");
  });

  test("the system's gzip accepts the stream and finds its CRC and length right", () => {
    const gz = gzipWithTail(compressHead(head), utf8("tail"));
    const run = spawnSync("gzip", ["-dc"], { input: gz });
    if (run.error) return; // no gzip binary on this machine: zlib's check above stands
    expect(run.status).toBe(0);
    expect(run.stderr.toString()).toBe("");
    expect(run.stdout.toString()).toBe(text(head) + "tail");
  });
});

describe("Accept-Encoding", () => {
  test.each([
    ["gzip, deflate, br", true],
    ["br;q=1.0, gzip;q=0.8, *;q=0.1", true],
    ["GZIP", true],
    ["x-gzip", true],
    ["*", true],
    ["gzip;q=0", false],
    ["gzip; q=0.0, identity", false],
    ["*;q=0", false],
    ["identity", false],
    ["br, deflate", false],
    ["", false],
  ])("%p → %p", (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
    // Asked again (the memo of the last header) the same answer.
    expect(acceptsGzip(header)).toBe(expected);
  });

  test("no header: no gzip", () => {
    expect(acceptsGzip(null)).toBe(false);
  });
});
