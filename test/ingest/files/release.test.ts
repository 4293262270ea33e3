/**
 * Inflated files are freed when read (or, with a thread's SpentBytes, just before the next file
 * is inflated), and never a buffer the reader does not own: the caller's plain bytes, a view
 * into a larger buffer.
 */
import { expect, test } from "bun:test";
import { decompress } from "../../../src/ingest/files/compression.ts";
import { release, SpentBytes } from "../../../src/ingest/files/release.ts";
import { readPriceFile, readPriceFilePacked } from "../../../src/ingest/parse/read-file.ts";
import { ProductMemo } from "../../../src/ingest/dialects/product-facts.ts";

const xml = (price: string) => `<Root><ChainId>7290058140886</ChainId><StoreId>13</StoreId><Items><Item><ItemCode>7290000066318</ItemCode><ItemName>חלב 3%</ItemName><ItemPrice>${price}</ItemPrice></Item></Items></Root>`;
const bytesOf = (text: string) => new TextEncoder().encode(text);
const NAME = "PriceFull7290058140886-013-202511021215.gz";

test("decompress says which bytes are its own: inflated ones, not the caller's plain bytes", () => {
  const plain = bytesOf(xml("5.90"));
  expect(decompress(plain).own).toBe(false);
  const gz = decompress(Bun.gzipSync(plain));
  expect(gz.own).toBe(true);
  expect(gz.bytes.byteLength).toBe(gz.bytes.buffer.byteLength);
});

test("release frees a whole buffer and leaves a view into a larger one alone", () => {
  const whole = new Uint8Array(1024).fill(7);
  release(whole);
  expect(whole.buffer.detached).toBe(true);
  expect(whole.length).toBe(0);
  const big = new Uint8Array(1024).fill(7);
  const part = big.subarray(10, 20);
  release(part);
  expect(big.buffer.detached).toBe(false);
  expect(part[0]).toBe(7);
  release(whole); // twice: nothing to do
});

test("a thread's SpentBytes keeps a file's inflated bytes until the next file is inflated; results are unchanged", () => {
  const spent = new SpentBytes();
  const memo = new ProductMemo();
  const first = readPriceFilePacked(Bun.gzipSync(bytesOf(xml("5.90"))), NAME, memo, { spent });
  const held = (spent as unknown as { held: Uint8Array }).held;
  expect(held.length).toBeGreaterThan(0);
  const second = readPriceFilePacked(Bun.gzipSync(bytesOf(xml("6.10"))), NAME, memo, { spent });
  expect((held.buffer as ArrayBuffer).detached).toBe(true);
  for (const [result, agorot] of [[first, 590], [second, 610]] as const) {
    expect(result.parsed.kind).toBe("prices-packed");
    const parsed = result.parsed as { text: string; numbers: Float64Array; count: number };
    expect(parsed.count).toBe(1);
    expect(parsed.text).toContain("חלב 3%");
    expect(parsed.numbers[2]).toBe(agorot);
  }
  spent.free();
  expect((spent as unknown as { held: Uint8Array | null }).held).toBe(null);
});

test("the caller's plain (uncompressed) bytes are never freed", () => {
  const spent = new SpentBytes();
  const plain = bytesOf(xml("5.90"));
  readPriceFilePacked(plain, "PriceFull7290058140886-013-202511021215.xml", new ProductMemo(), { spent });
  readPriceFilePacked(Bun.gzipSync(plain), NAME, new ProductMemo(), { spent });
  readPriceFile(plain, "PriceFull7290058140886-013-202511021215.xml");
  expect(plain.buffer.detached).toBe(false);
  expect(new TextDecoder().decode(plain)).toBe(xml("5.90"));
});
