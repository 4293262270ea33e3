import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate, NewerDatabaseError } from "../../src/db/migrate.ts";
import { openDataDir } from "../../src/db/open.ts";
import { PRICE_MIGRATIONS } from "../../src/db/price-schema.ts";
import { ACCOUNT_MIGRATIONS } from "../../src/db/account-schema.ts";

test("migrations apply once, in order, and record the version", () => {
  const db = new Database(":memory:");
  const steps = [
    { version: 1, name: "a", sql: "CREATE TABLE a (x INTEGER) STRICT;" },
    { version: 2, name: "b", sql: "CREATE TABLE b (y INTEGER) STRICT; INSERT INTO a VALUES (1);" },
  ];
  expect(migrate(db, "t", steps.slice(0, 1))).toBe(1);
  expect(migrate(db, "t", steps)).toBe(1);
  expect(migrate(db, "t", steps)).toBe(0);
  expect(db.query("PRAGMA user_version").get()).toEqual({ user_version: 2 });
  expect(db.query("SELECT count(*) AS n FROM a").get()).toEqual({ n: 1 });
});

test("a failing migration leaves the database at the previous version", () => {
  const db = new Database(":memory:");
  const steps = [
    { version: 1, name: "a", sql: "CREATE TABLE a (x INTEGER) STRICT;" },
    { version: 2, name: "broken", sql: "CREATE TABLE c (z INTEGER) STRICT; INSERT INTO nowhere VALUES (1);" },
  ];
  expect(() => migrate(db, "t", steps)).toThrow();
  expect(db.query("PRAGMA user_version").get()).toEqual({ user_version: 1 });
  expect(db.query("SELECT name FROM sqlite_master WHERE name = 'c'").get()).toBeNull();
});

test("a database from a newer mehir is refused with a clear message", () => {
  const dir = mkdtempSync(join(tmpdir(), "mehir-migrate-"));
  try {
    const db = openDataDir(dir);
    db.prices.run(`PRAGMA user_version = ${PRICE_MIGRATIONS.length + 5}`);
    db.prices.close();
    db.accounts.close();
    expect(() => openDataDir(dir)).toThrow(NewerDatabaseError);
    expect(() => openDataDir(dir)).toThrow(/newer|only knows up to/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("price data and accounts live in separate files with STRICT tables and WAL", () => {
  const dir = mkdtempSync(join(tmpdir(), "mehir-files-"));
  try {
    const db = openDataDir(dir);
    expect(db.prices.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    const priceTables = (db.prices.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name);
    const accountTables = (db.accounts.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name);
    expect(priceTables).toContain("price_current");
    expect(priceTables).not.toContain("accounts");
    expect(accountTables).toContain("accounts");
    expect(accountTables).not.toContain("price_current");
    const strict = db.prices.query("SELECT sql FROM sqlite_master WHERE name = 'price_current'").get() as { sql: string };
    expect(strict.sql).toContain("STRICT");
    expect(() => db.prices.run("INSERT INTO price_current (store_id, product_id, price, updated_at) VALUES (1, 1, 'cheap', 'x')")).toThrow();
    expect(ACCOUNT_MIGRATIONS.length).toBeGreaterThan(0);
    db.prices.close();
    db.accounts.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
