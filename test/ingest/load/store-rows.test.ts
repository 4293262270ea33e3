import { describe, expect, test } from "bun:test";
import { StoreRowsMemo } from "../../../src/ingest/load/store-rows.ts";

const rows = (n: number) => ({ ids: Array.from({ length: n }, (_, i) => i + 1), prices: Array.from({ length: n }, () => 990), allows: Array.from({ length: n }, () => 1) });

describe("StoreRowsMemo.holdsAll", () => {
  test("every store with rows held and the counts equal: all of the table", () => {
    const memo = new StoreRowsMemo();
    memo.keep(1, rows(3));
    memo.keep(2, rows(2));
    expect(memo.holdsAll(5, [1, 2])).toBe(true);
  });

  test("a store with rows that is not held is missing, even when the counts balance", () => {
    const memo = new StoreRowsMemo();
    memo.keep(1, rows(3));
    memo.keep(2, rows(2));
    // Store 2's rows are gone from the table while store 3 has two the memo never saw.
    expect(memo.holdsAll(5, [1, 3])).toBe(false);
  });

  test("different counts: rows missing", () => {
    const memo = new StoreRowsMemo();
    memo.keep(1, rows(3));
    expect(memo.holdsAll(4, [1])).toBe(false);
  });

  test("a store forgotten (its rows rewritten by another writer) no longer counts as held", () => {
    const memo = new StoreRowsMemo();
    memo.keep(1, rows(3));
    memo.keep(2, rows(2));
    memo.forget(2);
    expect(memo.holdsAll(5, [1, 2])).toBe(false);
    expect(memo.holdsAll(3, [1])).toBe(true);
  });
});
