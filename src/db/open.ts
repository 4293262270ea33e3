import { Database } from "bun:sqlite";
import { join } from "node:path";
import { migrate, type Migration } from "./migrate.ts";
import { PRICE_MIGRATIONS } from "./price-schema.ts";
import { ACCOUNT_MIGRATIONS } from "./account-schema.ts";
import { keepDatabasePrivate, makePrivateDir } from "./private-files.ts";

export const PRICES_FILE = "prices.sqlite";
export const ACCOUNTS_FILE = "accounts.sqlite";

/**
 * Opens (creating if needed) one SQLite file with the service's pragmas and brings its
 * schema up to date. `:memory:` is accepted for tests. A file opened to write is made readable
 * by its owner only (with its -wal and -shm), whatever the umask.
 */
export function openDatabase(path: string, migrations: Migration[], options: { readonly?: boolean } = {}): Database {
  const db = options.readonly
    ? new Database(path, { readonly: true, strict: true })
    : new Database(path, { create: true, strict: true });
  if (!options.readonly && path !== ":memory:" && path !== "") keepDatabasePrivate(path);
  db.run("PRAGMA busy_timeout = 10000");
  if (!options.readonly) {
    // A new file gives pages freed by pruning back to the disk (src/db/compaction.ts); this must be
    // set before its first table. An older file is switched by `mehir compact`.
    if (path !== ":memory:" && path !== "" && Number(db.query("PRAGMA page_count").values()[0]?.[0]) === 0) db.run("PRAGMA auto_vacuum = INCREMENTAL");
    db.run("PRAGMA journal_mode = WAL");
    db.run("PRAGMA synchronous = NORMAL");
    db.run("PRAGMA foreign_keys = ON");
    migrate(db, path, migrations);
  }
  db.run("PRAGMA cache_size = -65536");
  return db;
}

export interface Databases {
  prices: Database;
  accounts: Database;
}

/** Opens both databases of a data dir (made 0700 if new): price data and accounts, in separate files. */
export function openDataDir(dataDir: string): Databases {
  makePrivateDir(dataDir);
  return {
    prices: openDatabase(join(dataDir, PRICES_FILE), PRICE_MIGRATIONS),
    accounts: openDatabase(join(dataDir, ACCOUNTS_FILE), ACCOUNT_MIGRATIONS),
  };
}

/** In-memory databases with the full schema, for tests. */
export function openMemory(): Databases {
  return {
    prices: openDatabase(":memory:", PRICE_MIGRATIONS),
    accounts: openDatabase(":memory:", ACCOUNT_MIGRATIONS),
  };
}
