import type { Database } from "bun:sqlite";
import { toIsraelIso } from "../lib/time.ts";
import { DISPLAY_PREFIX_LENGTH, generateKey, hashKey, keyDisplay, keyKindOf, type KeyKind } from "./key-format.ts";

/** API keys in `accounts.sqlite`: create, list, revoke, set origins (CLI and portal). */

export interface StoredKey {
  id: number;
  accountId: number;
  kind: KeyKind;
  prefix: string;
  last4: string;
  name: string | null;
  allowedOrigins: string[];
  createdAt: string;
  revokedAt: string | null;
}

interface KeyRow {
  id: number;
  account_id: number;
  kind: KeyKind;
  prefix: string;
  last4: string;
  name: string | null;
  allowed_origins: string;
  created_at: string;
  revoked_at: string | null;
}

export class KeyError extends Error {
  override name = "KeyError";
}

export const MAX_KEY_NAME = 80;

function toKey(row: KeyRow): StoredKey {
  return {
    id: row.id,
    accountId: row.account_id,
    kind: row.kind,
    prefix: row.prefix,
    last4: row.last4,
    name: row.name,
    allowedOrigins: JSON.parse(row.allowed_origins) as string[],
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

/** How a key is shown after creation: `sk_live_AbC1…wxYz`. */
export function maskedKey(key: Pick<StoredKey, "prefix" | "last4">): string {
  return `${key.prefix}…${key.last4}`;
}

/**
 * Creates a key; returns the full key (to show once) and its stored record. Origins apply to
 * publishable keys only (pass them already validated with parseOriginList).
 */
export function createKey(
  db: Database,
  input: { accountId: number; kind: KeyKind; name?: string | null; origins?: string[] },
  now: Date,
): { key: string; record: StoredKey } {
  if (input.kind !== "publishable" && input.origins && input.origins.length > 0) {
    throw new KeyError("allowed origins apply to publishable keys only");
  }
  const name = input.name?.trim().slice(0, MAX_KEY_NAME) || null;
  const key = generateKey(input.kind);
  const { prefix, last4 } = keyDisplay(key);
  const row = db
    .query(
      `INSERT INTO api_keys (account_id, kind, hash, prefix, last4, name, allowed_origins, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    )
    .get(input.accountId, input.kind, hashKey(key), prefix, last4, name, JSON.stringify(input.origins ?? []), toIsraelIso(now)) as KeyRow;
  return { key, record: toKey(row) };
}

/** An account's keys, newest first (revoked ones too, marked). */
export function listKeys(db: Database, accountId: number): StoredKey[] {
  return (db.query("SELECT * FROM api_keys WHERE account_id = ? ORDER BY id DESC").all(accountId) as KeyRow[]).map(toKey);
}

export function findKey(db: Database, id: number): StoredKey | null {
  const row = db.query("SELECT * FROM api_keys WHERE id = ?").get(id) as KeyRow | null;
  return row ? toKey(row) : null;
}

/**
 * The one active key a full key, a display prefix (`sk_live_AbC1`) or a masked key
 * (`sk_live_AbC1…wxYz`, also with `...`) names. Throws KeyError when none or several match.
 */
export function resolveKey(db: Database, text: string, accountId?: number): StoredKey {
  const value = text.trim();
  let rows: KeyRow[];
  if (keyKindOf(value)) {
    rows = db.query("SELECT * FROM api_keys WHERE hash = ? AND revoked_at IS NULL").all(hashKey(value)) as KeyRow[];
  } else {
    const masked = /^(.{12})(?:…|\.\.\.)([0-9A-Za-z]{4})$/.exec(value);
    const prefix = masked ? masked[1]! : value;
    if (prefix.length !== DISPLAY_PREFIX_LENGTH || !/^(sk_live_|sk_test_|pk_live_)[0-9A-Za-z]{4}$/.test(prefix)) {
      throw new KeyError(`not a key or key prefix: ${JSON.stringify(value.slice(0, 60))} (expected e.g. sk_live_AbC1 or the whole key)`);
    }
    rows = db.query("SELECT * FROM api_keys WHERE prefix = ? AND revoked_at IS NULL").all(prefix) as KeyRow[];
    if (masked) rows = rows.filter((r) => r.last4 === masked[2]);
  }
  if (accountId !== undefined) rows = rows.filter((r) => r.account_id === accountId);
  if (rows.length === 0) throw new KeyError(`no active key matches ${JSON.stringify(value.slice(0, 60))}`);
  if (rows.length > 1) {
    throw new KeyError(`${rows.length} active keys match ${value}: ${rows.map((r) => maskedKey(r)).join(", ")}; give the masked form or the whole key`);
  }
  return toKey(rows[0]!);
}

/** Marks a key revoked (idempotent); returns false when no such active key of that account exists. */
export function revokeKeyById(db: Database, id: number, now: Date, accountId?: number): boolean {
  const result =
    accountId === undefined
      ? db.query("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL").run(toIsraelIso(now), id)
      : db.query("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND account_id = ? AND revoked_at IS NULL").run(toIsraelIso(now), id, accountId);
  return result.changes === 1;
}

/** Replaces the allowed origins of an account's active publishable key. */
export function setAllowedOrigins(db: Database, id: number, accountId: number, origins: string[]): boolean {
  const result = db
    .query("UPDATE api_keys SET allowed_origins = ? WHERE id = ? AND account_id = ? AND kind = 'publishable' AND revoked_at IS NULL")
    .run(JSON.stringify(origins), id, accountId);
  return result.changes === 1;
}
