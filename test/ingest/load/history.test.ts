import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { HistoryBuffer } from "../../../src/ingest/load/history.ts";
import { BatchInsert } from "../../../src/ingest/load/batch.ts";

function historyDb(): Database {
  const db = new Database(":memory:");
  db.run("CREATE TABLE price_history (product_id INTEGER NOT NULL, store_id INTEGER NOT NULL, valid_from TEXT NOT NULL, price INTEGER, PRIMARY KEY (product_id, store_id, valid_from)) WITHOUT ROWID, STRICT");
  return db;
}

describe("HistoryBuffer", () => {
  test("writes every held row; NULL prices stay NULL; the last row of one key wins", () => {
    const db = historyDb();
    const history = new HistoryBuffer(db);
    history.add(9, 1, "2026-11-20T05:00:00+02:00", 100);
    history.add(3, 2, "2026-11-20T05:00:00+02:00", null);
    history.add(9, 1, "2026-11-20T05:00:00+02:00", 120);
    history.add(3, 1, "2026-11-21T05:00:00+02:00", 50);
    expect(history.flush()).toBe(4);
    expect(history.size).toBe(0);
    expect(db.query("SELECT product_id, store_id, price FROM price_history ORDER BY product_id, store_id").values()).toEqual([
      [3, 1, 50],
      [3, 2, null],
      [9, 1, 120],
    ]);
  });

  test("truncate drops the rows of a rolled-back file", () => {
    const db = historyDb();
    const history = new HistoryBuffer(db);
    history.add(1, 1, "t1", 10);
    const mark = history.mark();
    history.add(2, 1, "t1", 20);
    history.truncate(mark);
    history.flush();
    expect(db.query("SELECT product_id FROM price_history").values()).toEqual([[1]]);
  });

  test("grows past its initial capacity and sorts large buffers", () => {
    const db = historyDb();
    const history = new HistoryBuffer(db);
    const n = 200_000;
    for (let i = 0; i < n; i++) history.add((i * 7919) % 50_000 + 1, (i % 4) + 1, `t${i % 3}`, i);
    expect(history.flush()).toBe(n);
    expect(db.query("SELECT count(*) AS n FROM price_history").get()).toEqual({ n: new Set(Array.from({ length: n }, (_, i) => `${(i * 7919) % 50_000}-${i % 4}-${i % 3}`)).size });
  });
});

describe("BatchInsert", () => {
  test("writes full batches and the remainder, in order", () => {
    const db = new Database(":memory:");
    db.run("CREATE TABLE t (a INTEGER, b TEXT)");
    const rows = new BatchInsert(db, "INSERT INTO t (a, b) VALUES", 2, "", 4);
    for (let i = 0; i < 10; i++) rows.add(i, `v${i}`);
    rows.flush();
    rows.add(99, "dropped");
    rows.discard();
    rows.flush();
    expect(db.query("SELECT a FROM t ORDER BY rowid").values().flat()).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  test("every remainder size is written in order, an upsert's later row winning", () => {
    const db = new Database(":memory:");
    db.run("CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT)");
    const rows = new BatchInsert(db, "INSERT INTO t (a, b) VALUES", 2, "ON CONFLICT (a) DO UPDATE SET b = excluded.b", 64);
    for (let n = 0; n <= 130; n++) {
      db.run("DELETE FROM t");
      // Each key twice in a row: the second (later) value must be the one kept.
      for (let i = 0; i < n; i++) rows.add(i >> 1, `${n}:${i}`);
      rows.flush();
      const want = Array.from({ length: (n + 1) >> 1 }, (_, k) => [k, `${n}:${Math.min(2 * k + 1, n - 1)}`]);
      expect(db.query("SELECT a, b FROM t ORDER BY a").values()).toEqual(want);
    }
  });
});
