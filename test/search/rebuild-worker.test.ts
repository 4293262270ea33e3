/**
 * The rebuild's worker (rebuild-worker.ts) reads and analyses the rows of a database file; the
 * serving thread does the same for an in-memory database. Both must leave the index identical.
 */
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/db/open.ts";
import { PRICE_MIGRATIONS } from "../../src/db/price-schema.ts";
import { setLogLevel } from "../../src/lib/log.ts";
import { buildSearchIndex } from "../../src/search/build.ts";
import { answersDatabase } from "../helpers/search/rebuild-answers.ts";

/**
 * Everything an index holds, in order: Maps and Sets as their entries (the order of the radix
 * tree's children matters: toEqual would not see it), typed arrays as their values.
 */
function serialized(index: object): string {
  const seen = new Set<object>();
  return JSON.stringify(index, (_key, value: unknown) => {
    if (value === null || typeof value !== "object") return value;
    if (seen.has(value)) return "[seen]"; // shared objects (the executor's view of the engine) once
    seen.add(value);
    if (value instanceof Map) return { map: [...value] };
    if (value instanceof Set) return { set: [...value] };
    if (ArrayBuffer.isView(value)) return { [value.constructor.name]: Array.from(value as unknown as ArrayLike<number>) };
    return value;
  });
}

test("an index built from a database file (the worker) equals one built in memory (the serving thread), structure for structure", async () => {
  setLogLevel("warn");
  const dir = mkdtempSync(join(tmpdir(), "mehir-rebuild-worker-"));
  try {
    const { db: memory } = answersDatabase();
    await Bun.write(join(dir, "prices.sqlite"), memory.serialize());
    const file = openDatabase(join(dir, "prices.sqlite"), PRICE_MIGRATIONS);
    // Small chunks: several batches, terms and manufacturers numbered across them.
    const here = await buildSearchIndex(memory, { cacheEntries: 0, readChunk: 50 });
    const inWorker = await buildSearchIndex(file, { cacheEntries: 0, readChunk: 50 });
    expect(inWorker.size).toBeGreaterThan(100);
    const expected = serialized(here);
    expect(serialized(inWorker)).toBe(expected);
    expect(serialized(await buildSearchIndex(file, { cacheEntries: 0, readChunk: 7 }))).toBe(expected);
    memory.close();
    file.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
