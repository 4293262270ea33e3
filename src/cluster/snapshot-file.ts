import { Database } from "bun:sqlite";

/** Lowercase hex SHA-256 of a file, read in chunks (never whole in memory). */
export async function sha256File(path: string): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  const reader = Bun.file(path).stream().getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) hasher.update(next.value);
  return hasher.digest("hex");
}

/** The data version, time and source recorded in a price database's meta table. */
export function readMeta(db: Database): { version: number; updatedAt: string | null; source: string } {
  const rows = db.query("SELECT key, value FROM meta WHERE key IN ('data_version', 'data_updated_at', 'source')").all() as { key: string; value: string }[];
  const meta = Object.fromEntries(rows.map((r) => [r.key, r.value]));
  return { version: Number(meta.data_version ?? 0), updatedAt: meta.data_updated_at ?? null, source: meta.source ?? "none" };
}

/**
 * Opens a snapshot file read-only after `PRAGMA quick_check`; throws (and closes it) when the
 * file is not a sound SQLite database or holds another data version than `expectedVersion`.
 */
export function openCheckedSnapshot(path: string, expectedVersion?: number): Database {
  const db = new Database(path, { readonly: true, strict: true });
  try {
    db.run("PRAGMA busy_timeout = 10000");
    const results = db.query("PRAGMA quick_check").values() as [string][];
    if (results.length !== 1 || results[0]![0] !== "ok") throw new Error(`quick_check failed: ${results.slice(0, 3).map((r) => r[0]).join("; ")}`);
    const { version } = readMeta(db);
    if (expectedVersion !== undefined && version !== expectedVersion) throw new Error(`holds data version ${version}, expected ${expectedVersion}`);
    db.run("PRAGMA cache_size = -65536");
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
