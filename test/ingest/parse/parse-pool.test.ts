import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ParsePool } from "../../../src/ingest/parse/parse-pool.ts";
import type { PriceList } from "../../../src/ingest/load/price-rows.ts";
import { syntheticPriceFull } from "../../helpers/ingest/synthetic-pricefull.ts";

let dir: string;
const files: { path: string; fileName: string; items: number }[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "parse-pool-"));
  for (let k = 0; k < 40; k++) {
    const fileName = `PriceFull7290058140886-${String(100 + k)}-2025010103${String(k).padStart(2, "0")}.gz`;
    // The first file is large (cold and slow to parse), the rest small: reads of the later ones finish first.
    const items = k === 0 ? 4000 : 3 + (k % 11);
    writeFileSync(join(dir, fileName), Bun.gzipSync(new TextEncoder().encode(syntheticPriceFull(items, k + 1))));
    files.push({ path: join(dir, fileName), fileName, items });
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a worker answers the files in the order they were asked (the order the loader takes them)", async () => {
  const pool = new ParsePool(1, 2 ** 26);
  const answered: number[] = [];
  try {
    const replies = files.map((file, k) =>
      pool.parse(file.path, file.fileName).then((reply) => {
        answered.push(k);
        return reply;
      }),
    );
    const rows = (await Promise.all(replies)).map((reply) => {
      if (!reply.ok) throw new Error(reply.reason);
      return (reply.parsed as PriceList).rows.count;
    });
    expect(rows).toEqual(files.map((file) => file.items));
    expect(answered).toEqual(files.map((_, k) => k));
  } finally {
    pool.close();
  }
}, 60_000);

test("a file that cannot be read comes back as a reply saying why, and the files after it still parse", async () => {
  const pool = new ParsePool(1, 2 ** 26);
  try {
    const gone = pool.parse(join(dir, "PriceFull7290058140886-999-202501010300.gz.missing"), "PriceFull7290058140886-999-202501010300.gz");
    const next = pool.parse(files[1]!.path, files[1]!.fileName);
    const missing = await gone;
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.reason).toMatch(/no such file|ENOENT/i);
    const reply = await next;
    expect(reply.ok && (reply.parsed as PriceList).rows.count).toBe(files[1]!.items);
  } finally {
    pool.close();
  }
}, 60_000);
