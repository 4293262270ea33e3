import { expect, test } from "bun:test";
import { crc32, gunzipSync } from "node:zlib";
import { crc32Combine } from "../../../src/http/prebuilt/crc32-combine.ts";
import { compressHead, gzipWithTail, joinHeads } from "../../../src/http/prebuilt/gzip-answer.ts";
import { seeded } from "../../../bench/lib/rng.ts";

const utf8 = (text: string) => new TextEncoder().encode(text);

function randomBytes(rnd: () => number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = Math.floor(rnd() * 256);
  return out;
}

test("crc32Combine of two CRCs is zlib's CRC of the joined bytes, for lengths 0 to 300 KB", () => {
  const rnd = seeded(7);
  for (const [n1, n2] of [[0, 0], [0, 5], [5, 0], [1, 1], [13, 4096], [70_000, 3], [1, 300_000], [65_535, 65_537]] as const) {
    const a = randomBytes(rnd, n1);
    const b = randomBytes(rnd, n2);
    const joined = new Uint8Array(n1 + n2);
    joined.set(a, 0);
    joined.set(b, n1);
    expect(crc32Combine(crc32(a), crc32(b), n2)).toBe(crc32(joined) >>> 0);
  }
});

test("crc32Combine agrees with zlib for 500 random pairs of CRCs and lengths (every bit pattern of the multiplication)", () => {
  const rnd = seeded(11);
  for (let i = 0; i < 500; i++) {
    const a = randomBytes(rnd, Math.floor(rnd() * 64));
    const b = randomBytes(rnd, Math.floor(rnd() * (i % 5 === 0 ? 70_000 : 300)));
    const joined = new Uint8Array(a.length + b.length);
    joined.set(a, 0);
    joined.set(b, a.length);
    expect(crc32Combine(crc32(a), crc32(b), b.length)).toBe(crc32(joined) >>> 0);
  }
});

test("joinHeads of plain and deflated parts is one gzip member of their text, with its CRC", () => {
  const parts = [utf8('{"data":['), compressHead(utf8(JSON.stringify({ name: "חלב", n: 1 }))), utf8(","), compressHead(utf8(JSON.stringify({ name: "לחם", n: 2 }))), utf8("]")];
  const gz = gzipWithTail(joinHeads(parts), utf8("}"));
  // gunzipSync checks the trailer's CRC and length.
  const text = new TextDecoder().decode(gunzipSync(gz));
  expect(JSON.parse(text)).toEqual({ data: [{ name: "חלב", n: 1 }, { name: "לחם", n: 2 }] });
});
