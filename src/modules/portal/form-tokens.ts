import type { Database } from "bun:sqlite";
import { randomToken, sha256Hex } from "./tokens.ts";

/**
 * Single-use tokens for the create-key form: each form shown carries a new one; the post that
 * presents it makes the key and records it against the token, in one transaction. A second post
 * of the same form — back button, double click, a replayed request — makes no key: it learns
 * which key the first made. Tokens are stored hashed and kept a day (then the form has expired).
 */

export const FORM_TOKEN_HOURS = 24;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** A new token for a form shown to `accountId` (expired tokens are deleted on the way). */
export function issueFormToken(db: Database, accountId: number, now: Date): string {
  const token = randomToken();
  db.query("DELETE FROM form_tokens WHERE created_at < ?").run(new Date(now.getTime() - FORM_TOKEN_HOURS * 3_600_000).toISOString());
  db.query("INSERT INTO form_tokens (token_hash, account_id, created_at) VALUES (?, ?, ?)").run(sha256Hex(token), accountId, now.toISOString());
  return token;
}

export type FormTokenUse<T> =
  /** The token was fresh: `make` ran and its key is now the token's. */
  | { outcome: "made"; result: T }
  /** The token was used before: the key it made then. */
  | { outcome: "used"; keyId: number }
  /** Unknown, another account's, or expired. */
  | { outcome: "invalid" };

/**
 * Uses a token once: runs `make` (which returns the new key's id with its result) only when the
 * token is this account's, unexpired and unused, and marks it used in the same transaction.
 *
 * @example const use = useFormToken(db, form.get("form_token"), accountId, now, () => { const k = createKey(...); return { keyId: k.record.id, result: k }; });
 */
export function useFormToken<T>(db: Database, token: string | null, accountId: number, now: Date, make: () => { keyId: number; result: T }): FormTokenUse<T> {
  if (!token || !TOKEN.test(token)) return { outcome: "invalid" };
  const hash = sha256Hex(token);
  const oldest = new Date(now.getTime() - FORM_TOKEN_HOURS * 3_600_000).toISOString();
  return db.transaction((): FormTokenUse<T> => {
    const row = db.query("SELECT key_id FROM form_tokens WHERE token_hash = ? AND account_id = ? AND created_at >= ?").get(hash, accountId, oldest) as { key_id: number | null } | null;
    if (!row) return { outcome: "invalid" };
    if (row.key_id !== null) return { outcome: "used", keyId: row.key_id };
    const made = make();
    db.query("UPDATE form_tokens SET key_id = ? WHERE token_hash = ?").run(made.keyId, hash);
    return { outcome: "made", result: made.result };
  }).immediate();
}
