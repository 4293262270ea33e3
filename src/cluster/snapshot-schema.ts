import { Database } from "bun:sqlite";
import { openDatabase } from "../db/open.ts";
import { PRICE_MIGRATIONS } from "../db/price-schema.ts";

interface SchemaObject {
  type: string;
  name: string;
  tbl_name: string;
}

/** What the price schema is, as the code's own migrations build it (a fresh in-memory database). */
let expected: { version: number; objects: Map<string, SchemaObject>; columns: Map<string, string> } | null = null;

function describe(db: Database): { version: number; objects: Map<string, SchemaObject>; columns: Map<string, string> } {
  const version = (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
  // SQLite's own objects (sqlite_autoindex_*, sqlite_stat1 of ANALYZE, sqlite_sequence) are left out.
  const rows = db.query("SELECT type, name, tbl_name FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY type, name").all() as SchemaObject[];
  const objects = new Map(rows.map((r) => [`${r.type} ${r.name}`, r]));
  const columns = new Map<string, string>();
  for (const r of rows) {
    if (r.type !== "table") continue;
    const cols = db.query(`SELECT name, type, "notnull", pk FROM pragma_table_xinfo(?) ORDER BY cid`).all(r.name) as { name: string; type: string; notnull: number; pk: number }[];
    columns.set(r.name, cols.map((c) => `${c.name} ${c.type}${c.notnull ? " NOT NULL" : ""}${c.pk ? ` PK${c.pk}` : ""}`).join(", "));
  }
  return { version, objects, columns };
}

/**
 * How a price database's schema differs from the one this code builds (PRICE_MIGRATIONS applied
 * to a fresh in-memory database): its schema version, tables missing or added, a table's
 * columns (name, type, NOT NULL, key), indexes, and any view or trigger (the schema has none
 * of its own: a view in place of a table can make every read slow or wrong). Empty when they
 * are the same. A replica refuses a snapshot with differences (snapshot-file.ts).
 *
 * @example schemaDifferences(db) // ["table price_current missing", "view v added"]
 */
export function schemaDifferences(db: Database): string[] {
  if (!expected) {
    const fresh = openDatabase(":memory:", PRICE_MIGRATIONS);
    expected = describe(fresh);
    fresh.close();
  }
  const actual = describe(db);
  const out: string[] = [];
  if (actual.version !== expected.version) out.push(`schema version ${actual.version}, this mehir's is ${expected.version}`);
  for (const [key, object] of expected.objects) {
    const found = actual.objects.get(key);
    if (!found) out.push(`${key} missing`);
    else if (found.tbl_name !== object.tbl_name) out.push(`${key} is on ${found.tbl_name}, not ${object.tbl_name}`);
  }
  for (const key of actual.objects.keys()) if (!expected.objects.has(key)) out.push(`${key} added`);
  for (const [table, columns] of expected.columns) {
    const found = actual.columns.get(table);
    if (found !== undefined && found !== columns) out.push(`table ${table} has columns (${found}), expected (${columns})`);
  }
  return out;
}
