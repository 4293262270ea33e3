import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate } from "../../src/db/migrate.ts";
import { PRICE_MIGRATIONS } from "../../src/db/price-schema.ts";
import { ACCOUNT_MIGRATIONS } from "../../src/db/account-schema.ts";
import { openDataDir } from "../../src/db/open.ts";
import { pruneHistory } from "../../src/db/retention.ts";
import { databaseSpace, reclaimFreePages } from "../../src/db/compaction.ts";
import { checkpointWal } from "../../src/db/checkpoint.ts";
import { backupDataDir } from "../../src/cli/backup.ts";
import { main } from "../../src/main.ts";

const root = mkdtempSync(join(tmpdir(), "mehir-compaction-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Nine rows per product and store: eight before 2024-10-22 (seven of them superseded), one after. */
function fillHistory(db: Database, products = 2_000, stores = 40): void {
  db.run(
    `INSERT INTO price_history (product_id, store_id, valid_from, price)
     WITH RECURSIVE p(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM p WHERE i < ?1), s(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM s WHERE j < ?2),
          d(v) AS (VALUES ('2023-01-05T06:00:00+02:00'), ('2023-03-05T06:00:00+02:00'), ('2023-05-05T06:00:00+03:00'), ('2023-07-05T06:00:00+03:00'),
                       ('2023-09-05T06:00:00+03:00'), ('2023-11-05T06:00:00+02:00'), ('2024-01-05T06:00:00+02:00'), ('2024-06-05T06:00:00+03:00'), ('2025-06-05T06:00:00+03:00'))
     SELECT i, j, v, 500 + (i + j) % 50 FROM p, s, d ORDER BY 1, 2, 3`,
    [products, stores],
  );
}

/** A data dir as an earlier version made it: no auto-vacuum mode set before its tables. */
function olderDataDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const [file, migrations] of [["prices.sqlite", PRICE_MIGRATIONS], ["accounts.sqlite", ACCOUNT_MIGRATIONS]] as const) {
    const db = new Database(join(dir, file), { create: true, strict: true });
    db.run("PRAGMA journal_mode = WAL");
    migrate(db, file, migrations);
    db.close();
  }
}

test("a new data dir gives freed pages back: pruning, then an incremental vacuum shrinks the file", () => {
  const db = openDataDir(join(root, "new"));
  expect(databaseSpace(db.prices).autoVacuum).toBe("incremental");
  expect(databaseSpace(db.accounts).autoVacuum).toBe("incremental");
  fillHistory(db.prices);
  checkpointWal(db.prices);
  const full = databaseSpace(db.prices);
  expect(pruneHistory(db.prices, "2024-10-22")).toBe(2_000 * 40 * 7);
  expect(databaseSpace(db.prices).freePages).toBeGreaterThan(0);
  expect(reclaimFreePages(db.prices)).toBeGreaterThan(0);
  checkpointWal(db.prices);
  const after = databaseSpace(db.prices);
  expect(after.freePages).toBe(0);
  expect(after.bytes).toBeLessThan(full.bytes);
  expect(statSync(join(root, "new", "prices.sqlite")).size).toBe(after.bytes);
  db.prices.close();
  db.accounts.close();
});

test("an older data dir keeps its freed pages for reuse until `mehir compact` switches it; then it shrinks after pruning", async () => {
  const dir = join(root, "older");
  olderDataDir(dir);
  let db = openDataDir(dir);
  expect(databaseSpace(db.prices).autoVacuum).toBe("none");
  fillHistory(db.prices);
  pruneHistory(db.prices, "2024-10-22");
  checkpointWal(db.prices);
  const pruned = databaseSpace(db.prices);
  expect(pruned.freePages).toBeGreaterThan(0);
  expect(reclaimFreePages(db.prices)).toBe(0);
  // Freed pages are reused: writing as much again does not grow the file by as much.
  db.prices.run("INSERT INTO price_history (product_id, store_id, valid_from, price) SELECT product_id, store_id, '2026-01-01T06:00:00+02:00', price FROM price_history WHERE valid_from > '2025'");
  checkpointWal(db.prices);
  expect(databaseSpace(db.prices).bytes).toBeLessThan(pruned.bytes + pruned.freeBytes);
  db.prices.close();
  db.accounts.close();

  const log: string[] = [];
  const original = console.log;
  console.log = (line: string) => log.push(line);
  try {
    expect(await main(["compact", "--data-dir", dir])).toBe(0);
  } finally {
    console.log = original;
  }
  expect(log.join("\n")).toMatch(/prices\.sqlite: .* auto_vacuum none\) → .* auto_vacuum incremental\)/);
  db = openDataDir(dir);
  const compacted = databaseSpace(db.prices);
  expect(compacted).toMatchObject({ autoVacuum: "incremental", freePages: 0 });
  expect(databaseSpace(db.accounts).autoVacuum).toBe("incremental");
  expect(pruneHistory(db.prices, "2025-10-22")).toBeGreaterThan(0);
  expect(reclaimFreePages(db.prices)).toBeGreaterThan(0);
  checkpointWal(db.prices);
  expect(databaseSpace(db.prices).bytes).toBeLessThan(compacted.bytes);
  db.prices.close();
  db.accounts.close();
});

test("a backup carries only what is kept (no pruned rows, no free pages)", () => {
  const dir = join(root, "backed");
  olderDataDir(dir);
  const db = openDataDir(dir);
  fillHistory(db.prices);
  pruneHistory(db.prices, "2024-10-22");
  checkpointWal(db.prices);
  const live = databaseSpace(db.prices);
  const kept = (db.prices.query("SELECT count(*) AS n FROM price_history").get() as { n: number }).n;
  expect(live.freePages).toBeGreaterThan(0);
  db.prices.close();
  db.accounts.close();
  backupDataDir(dir, join(root, "backup"));
  const copy = new Database(join(root, "backup", "prices.sqlite"), { readonly: true });
  expect(copy.query("SELECT count(*) AS n FROM price_history").get()).toEqual({ n: kept });
  expect(copy.query("SELECT count(*) AS n FROM price_history WHERE valid_from < '2024-06-05'").get()).toEqual({ n: 0 });
  expect(databaseSpace(copy).freePages).toBe(0);
  expect(databaseSpace(copy).bytes).toBeLessThanOrEqual(live.bytes - live.freeBytes);
  copy.close();
});
