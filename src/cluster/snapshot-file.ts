import { Database } from "bun:sqlite";
import { schemaDifferences } from "./snapshot-schema.ts";

/** Lowercase hex SHA-256 of a file, read in chunks (never whole in memory). */
export async function sha256File(path: string): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  const reader = Bun.file(path).stream().getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) hasher.update(next.value);
  return hasher.digest("hex");
}

export interface SnapshotMeta {
  version: number;
  updatedAt: string | null;
  source: string;
}

/** The data version, time and source recorded in a price database's meta table. */
export function readMeta(db: Database): SnapshotMeta {
  const rows = db.query("SELECT key, value FROM meta WHERE key IN ('data_version', 'data_updated_at', 'source')").all() as { key: string; value: string }[];
  const meta = Object.fromEntries(rows.map((r) => [r.key, r.value]));
  return { version: Number(meta.data_version ?? 0), updatedAt: meta.data_updated_at ?? null, source: meta.source ?? "none" };
}

/**
 * Checks a snapshot file — its schema against the code's own (snapshot-schema.ts: tables and
 * columns, no view or trigger of its own), then `PRAGMA quick_check` (it reads every page:
 * seconds for a multi-GB file — run it off the serving thread, see snapshot-check.ts) — and
 * returns its meta; throws when the file is not a sound SQLite database of the price schema or
 * holds another data version than `expectedVersion`.
 */
export function checkSnapshotFile(path: string, expectedVersion?: number): SnapshotMeta {
  const db = new Database(path, { readonly: true, strict: true });
  try {
    db.run("PRAGMA busy_timeout = 10000");
    const differences = schemaDifferences(db);
    if (differences.length > 0) throw new Error(`schema differs from this mehir's: ${differences.slice(0, 5).join("; ")}${differences.length > 5 ? `; and ${differences.length - 5} more` : ""}`);
    const results = db.query("PRAGMA quick_check").values() as [string][];
    if (results.length !== 1 || results[0]![0] !== "ok") throw new Error(`quick_check failed: ${results.slice(0, 3).map((r) => r[0]).join("; ")}`);
    const meta = readMeta(db);
    if (expectedVersion !== undefined && meta.version !== expectedVersion) throw new Error(`holds data version ${meta.version}, expected ${expectedVersion}`);
    return meta;
  } finally {
    db.close();
  }
}

/**
 * Opens a snapshot read-only for serving, without checking it again: a file is served only after
 * checkSnapshotFile passed on it, or when its SHA-256 equals a manifest's (the file the check
 * passed on, byte for byte).
 */
export function openSnapshot(path: string): Database {
  const db = new Database(path, { readonly: true, strict: true });
  try {
    db.run("PRAGMA busy_timeout = 10000");
    db.run("PRAGMA cache_size = -65536");
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
