import type { Database, Statement } from "bun:sqlite";

// Prepared statements per connection: a pure memo (a statement is a function of its connection and
// SQL text, and goes with the connection), not app state.
const cache = new WeakMap<Database, Map<string, Statement>>();

/**
 * A prepared statement, compiled once per connection and reused (bun:sqlite's own query
 * cache holds only 20 statements, fewer than the service uses on its hot paths).
 */
export function stmt(db: Database, sql: string): Statement {
  let perDb = cache.get(db);
  if (!perDb) cache.set(db, (perDb = new Map()));
  let statement = perDb.get(sql);
  if (!statement) perDb.set(sql, (statement = db.prepare(sql)));
  return statement;
}
