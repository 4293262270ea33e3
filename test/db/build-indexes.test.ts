import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildIndexes } from "../../src/db/build-indexes.ts";

const settings = (db: Database) => ["cache_size", "cache_spill", "threads"].map((name) => db.query(`PRAGMA ${name}`).values()[0]![0]);

test("indexes built on sorter threads are whole and consistent, and the connection's settings come back", () => {
  const dir = mkdtempSync(join(tmpdir(), "build-indexes-"));
  const db = new Database(join(dir, "x.sqlite"), { create: true, strict: true });
  try {
    db.run("PRAGMA journal_mode = WAL");
    db.run("PRAGMA cache_size = -65536");
    db.run("CREATE TABLE t (a INTEGER NOT NULL, b INTEGER NOT NULL, c TEXT NOT NULL, PRIMARY KEY (a, b)) WITHOUT ROWID");
    const before = settings(db);
    db.run("BEGIN");
    const insert = db.prepare("INSERT INTO t VALUES (?, ?, ?)");
    let seed = 7;
    // Several of the sorter's runs' worth of keys, in an order unlike the index's.
    for (let a = 0; a < 200; a++) for (let b = 0; b < 1000; b++) insert.run(a, b, `v${(seed = (seed * 48271) % 2147483647) % 5000}`);
    buildIndexes(db, ["CREATE INDEX t_by_c ON t (c, b)", "CREATE INDEX t_by_b ON t (b)"]);
    expect(settings(db)).toEqual(before);
    db.run("COMMIT");
    // Every index entry matches its table row, and every row has its entries.
    expect(db.query("PRAGMA integrity_check").values()).toEqual([["ok"]]);
    expect(db.query("SELECT count(*) FROM t INDEXED BY t_by_c WHERE c >= ''").values()).toEqual([[200_000]]);
    expect(db.query("SELECT count(*) FROM t INDEXED BY t_by_b WHERE b >= 0").values()).toEqual([[200_000]]);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
