import type { Database } from "bun:sqlite";

/** One numbered, forward-only schema step. `version` starts at 1 and has no gaps. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Raised when a database file was written by a newer mehir than this one. */
export class NewerDatabaseError extends Error {
  constructor(file: string, found: number, known: number) {
    super(
      `${file} has schema version ${found}, but this mehir only knows up to ${known}: ` +
        `upgrade mehir, or restore a backup made by this version`,
    );
    this.name = "NewerDatabaseError";
  }
}

/**
 * Applies the migrations newer than `PRAGMA user_version`, each in its own transaction,
 * and refuses a database whose version is newer than the newest migration.
 *
 * @example migrate(db, "prices.sqlite", PRICE_MIGRATIONS) // → number of steps applied
 */
export function migrate(db: Database, file: string, migrations: Migration[]): number {
  const known = migrations.length === 0 ? 0 : migrations[migrations.length - 1]!.version;
  const current = (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
  if (current > known) throw new NewerDatabaseError(file, current, known);
  let applied = 0;
  for (const step of migrations) {
    if (step.version <= current) continue;
    db.transaction(() => {
      db.run(step.sql);
      db.run(`PRAGMA user_version = ${step.version}`);
    })();
    applied++;
  }
  return applied;
}
