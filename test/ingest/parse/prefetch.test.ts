import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Prefetcher, filesAhead, stealsWhenWaiting } from "../../../src/ingest/parse/prefetch.ts";
import { parseFileName } from "../../../src/ingest/files/name.ts";
import type { OrderedFile } from "../../../src/ingest/run/order.ts";
import type { PriceList } from "../../../src/ingest/load/price-rows.ts";
import { syntheticPriceFull } from "../../helpers/ingest/synthetic-pricefull.ts";

describe("stealsWhenWaiting", () => {
  test("the importing thread parses only with a core to spare beyond the workers and itself", () => {
    expect(stealsWhenWaiting(2, 1)).toBe(false);
    expect(stealsWhenWaiting(1, 1)).toBe(false);
    expect(stealsWhenWaiting(4, 3)).toBe(false);
    expect(stealsWhenWaiting(2, 2)).toBe(false);
    expect(stealsWhenWaiting(3, 1)).toBe(true);
    expect(stealsWhenWaiting(8, 3)).toBe(true);
  });
});

describe("filesAhead", () => {
  const sized = (...sizes: number[]) => sizes.map((size) => ({ size }));
  const MiB = 2 ** 20;

  test("without stealing, the workers are asked past their queue while the files come to 16 MiB, at most 64", () => {
    expect(filesAhead(sized(...Array(100).fill(100_000)), 0, 7, false)).toBe(64);
    expect(filesAhead(sized(...Array(100).fill(100_000)), 90, 7, false)).toBe(10);
    expect(filesAhead(sized(...Array(20).fill(2 * MiB)), 0, 7, false)).toBe(8);
    expect(filesAhead(sized(...Array(20).fill(2 * MiB)), 5, 3, false)).toBe(8);
  });

  test("the queue is asked whatever the sizes; with stealing, only the queue", () => {
    expect(filesAhead(sized(...Array(20).fill(40 * MiB)), 0, 7, false)).toBe(7);
    expect(filesAhead(sized(...Array(100).fill(100_000)), 0, 11, true)).toBe(11);
  });
});

describe("Prefetcher", () => {
  let dir: string;
  const files: OrderedFile[] = [];
  const items: number[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "prefetch-"));
    for (let k = 0; k < 20; k++) {
      const fileName = `PriceFull7290058140886-${String(100 + k)}-202501010${String(300 + k).padStart(4, "0")}.gz`;
      const path = join(dir, fileName);
      items.push(5 + ((k * 7) % 13));
      writeFileSync(path, Bun.gzipSync(new TextEncoder().encode(syntheticPriceFull(items[k]!, k + 1))));
      files.push({ path, size: statSync(path).size, fileName, name: parseFileName(fileName) });
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Every file's reply, taken in order as the importer does: its row count and first row's price. */
  async function takeAll(cores: number): Promise<[number, number][]> {
    const ahead = new Prefetcher(files, { workers: 1, maxBytes: 2 ** 26, cores });
    const out: [number, number][] = [];
    try {
      for (let i = 0; i < files.length; i++) {
        const reply = await ahead.take(i);
        if (!reply.ok) throw new Error(reply.reason);
        const rows = (reply.parsed as PriceList).rows;
        out.push([rows.count, rows.price(0)]);
      }
    } finally {
      ahead.close();
    }
    return out;
  }

  test("gives every file's rows in order, with or without the importing thread parsing", async () => {
    const alone = await takeAll(2);
    expect(alone.map(([count]) => count)).toEqual(items);
    expect(await takeAll(8)).toEqual(alone);
  }, 60_000);
});
