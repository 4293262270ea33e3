import type { Database } from "bun:sqlite";

/** Per table: row count and a SHA-256 over all rows in a stable order. */
export function tableChecksums(db: Database, skip: string[] = []): Record<string, string> {
  const tables = (db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[])
    .map((t) => t.name)
    .filter((t) => !skip.includes(t));
  const out: Record<string, string> = {};
  for (const table of tables) {
    const columns = (db.query(`PRAGMA table_info("${table}")`).all() as { name: string }[]).map((c) => `"${c.name}"`);
    const rows = db.query(`SELECT * FROM "${table}" ORDER BY ${columns.join(", ")}`).values();
    const hasher = new Bun.CryptoHasher("sha256");
    for (const row of rows) hasher.update(JSON.stringify(row, (_k, v) => (v instanceof Uint8Array ? [...v] : v)));
    out[table] = `${rows.length}:${hasher.digest("hex").slice(0, 16)}`;
  }
  return out;
}
