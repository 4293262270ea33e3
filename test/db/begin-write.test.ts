import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beginWriteInMemoryJournals } from "../../src/db/begin-write.ts";

// Whether a journal spills to a temporary file is seen from a process of its own (see
// journal-temp-files.ts): counted in this one, another test's connection or worker could open or
// close a temporary file between the two counts. Linux only (/proc); elsewhere the test of the
// transaction's behaviour below still runs.
const linux = process.platform === "linux";
const CHILD = join(import.meta.dir, "journal-temp-files.ts");

/** The child's counts of open files in its own SQLite temporary folder, before and during the statement. */
async function tempFilesDuringBigStatement(mode: "plain" | "memory"): Promise<{ before: number; during: number; rows: number }> {
  const dir = mkdtempSync(join(tmpdir(), "begin-write-"));
  const tempDir = join(dir, "sqlite-tmp");
  mkdirSync(tempDir);
  try {
    const child = Bun.spawn([process.execPath, CHILD, dir, mode], {
      env: { ...process.env, SQLITE_TMPDIR: tempDir },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    if (code !== 0) throw new Error(`journal-temp-files.ts ${mode} exited ${code}: ${err}`);
    return JSON.parse(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A WAL database with 100,000 rows over a few hundred pages, in a folder of its own. */
function withTable(run: (db: Database) => void): void {
  const dir = mkdtempSync(join(tmpdir(), "begin-write-"));
  const db = new Database(join(dir, "x.sqlite"), { create: true, strict: true });
  try {
    db.run("PRAGMA journal_mode = WAL");
    db.run("CREATE TABLE t (a INTEGER NOT NULL, b INTEGER NOT NULL, PRIMARY KEY (a, b)) WITHOUT ROWID, STRICT");
    db.run("WITH RECURSIVE s(v) AS (SELECT 0 UNION ALL SELECT v + 1 FROM s WHERE v < 99999) INSERT INTO t SELECT v % 1000, v / 1000 FROM s");
    run(db);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One statement that changes rows on every page of the table (far past the 64 KiB a journal keeps in memory by default). */
const touchEveryPage = (db: Database) => db.run("INSERT INTO t SELECT a, b + 1000 FROM t WHERE b < 2");

describe("beginWriteInMemoryJournals", () => {
  test.skipIf(!linux)(
    "a big statement's journal opens no temporary file (a plain BEGIN IMMEDIATE's does) — Linux only: the files are seen in /proc",
    async () => {
      // The check sees SQLite's spilled statement journal…
      const plain = await tempFilesDuringBigStatement("plain");
      expect(plain.before).toBe(0);
      expect(plain.during).toBeGreaterThan(0);
      // …and there is none with the journals in memory.
      const memory = await tempFilesDuringBigStatement("memory");
      expect(memory).toEqual({ before: 0, during: 0, rows: 102_000 });
    },
    60_000,
  );

  test("the transaction is open; temp_store comes back as it was; a failed statement and a savepoint are still undone alone", () => {
    withTable((db) => {
      db.run("PRAGMA temp_store = FILE");
      beginWriteInMemoryJournals(db);
      expect(db.inTransaction).toBe(true);
      expect(db.query("PRAGMA temp_store").values()).toEqual([[1]]);
      touchEveryPage(db);
      // Rows on every page, then a duplicate key at the end: the statement fails and none of its rows stay.
      expect(() => db.run("INSERT INTO t SELECT a, b + 5000 FROM t WHERE b = 0 UNION ALL SELECT 0, 0")).toThrow(/UNIQUE|PRIMARY KEY/);
      expect(db.query("SELECT count(*) FROM t WHERE b >= 5000").values()).toEqual([[0]]);
      db.run("SAVEPOINT file");
      db.run("DELETE FROM t WHERE b % 3 = 0");
      db.run("ROLLBACK TO file");
      db.run("RELEASE file");
      db.run("COMMIT");
      expect(db.query("SELECT count(*) FROM t").values()).toEqual([[102_000]]);
      expect(db.query("PRAGMA integrity_check").values()).toEqual([["ok"]]);
    });
  });

  test("a BEGIN that fails (a transaction already open) throws and leaves temp_store as it was", () => {
    withTable((db) => {
      db.run("PRAGMA temp_store = DEFAULT");
      db.run("BEGIN");
      expect(() => beginWriteInMemoryJournals(db)).toThrow(/within a transaction/);
      expect(db.query("PRAGMA temp_store").values()).toEqual([[0]]);
      db.run("ROLLBACK");
    });
  });
});
