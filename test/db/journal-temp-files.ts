// Run by begin-write.test.ts in a process of its own, with SQLITE_TMPDIR set to a fresh folder:
// opens a write transaction (plain `BEGIN IMMEDIATE`, or beginWriteInMemoryJournals with
// argument "memory"), runs one statement that touches every page of a 100,000-row table, and
// prints how many files in that folder the process holds open. SQLite unlinks a temporary file as
// soon as it opens it, so /proc/self/fd is the only place to see one (Linux only). In a process of
// its own nothing else (another test's connection or worker) can open or close one meanwhile.
import { Database } from "bun:sqlite";
import { readdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { beginWriteInMemoryJournals } from "../../src/db/begin-write.ts";

const [dir, mode] = process.argv.slice(2) as [string, "plain" | "memory"];
const tempDir = process.env.SQLITE_TMPDIR!;

const openInTempDir = () =>
  readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(`${tempDir}/`);
    } catch {
      return false;
    }
  }).length;

const db = new Database(join(dir, "x.sqlite"), { create: true, strict: true });
db.run("PRAGMA journal_mode = WAL");
db.run("CREATE TABLE t (a INTEGER NOT NULL, b INTEGER NOT NULL, PRIMARY KEY (a, b)) WITHOUT ROWID, STRICT");
db.run("WITH RECURSIVE s(v) AS (SELECT 0 UNION ALL SELECT v + 1 FROM s WHERE v < 99999) INSERT INTO t SELECT v % 1000, v / 1000 FROM s");
const before = openInTempDir();
if (mode === "memory") beginWriteInMemoryJournals(db);
else db.run("BEGIN IMMEDIATE");
db.run("INSERT INTO t SELECT a, b + 1000 FROM t WHERE b < 2");
const during = openInTempDir();
db.run("COMMIT");
const rows = db.query("SELECT count(*) FROM t").values()[0]![0];
db.close();
console.log(JSON.stringify({ before, during, rows }));
