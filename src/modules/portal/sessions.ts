import type { Database } from "bun:sqlite";
import { toIsraelIso } from "../../lib/time.ts";
import { randomToken, sha256Hex } from "./tokens.ts";

/**
 * Portal sessions: a random token in an HttpOnly cookie, stored only as its SHA-256 hash, with
 * a per-session CSRF token. `expires_at` is UTC ISO so expired rows can be deleted by comparison.
 */

export const SESSION_COOKIE = "mehir_session";
export const SESSION_DAYS = 30;

export interface Session {
  accountId: number;
  csrf: string;
  tokenHash: string;
}

export function createSession(db: Database, accountId: number, now: Date): { token: string; session: Session } {
  const token = randomToken();
  const csrf = randomToken();
  const tokenHash = sha256Hex(token);
  const expires = new Date(now.getTime() + SESSION_DAYS * 86_400_000).toISOString();
  db.query("DELETE FROM sessions WHERE expires_at < ?").run(now.toISOString());
  db.query("INSERT INTO sessions (token_hash, account_id, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?)").run(
    tokenHash,
    accountId,
    csrf,
    toIsraelIso(now),
    expires,
  );
  return { token, session: { accountId, csrf, tokenHash } };
}

/** The live session of a cookie token, or null (unknown or expired). */
export function findSession(db: Database, token: string | undefined, now: Date): Session | null {
  if (!token || token.length > 100) return null;
  const tokenHash = sha256Hex(token);
  const row = db.query("SELECT account_id, csrf_token, expires_at FROM sessions WHERE token_hash = ?").get(tokenHash) as {
    account_id: number;
    csrf_token: string;
    expires_at: string;
  } | null;
  if (!row || row.expires_at < now.toISOString()) return null;
  return { accountId: row.account_id, csrf: row.csrf_token, tokenHash };
}

export function deleteSession(db: Database, tokenHash: string): void {
  db.query("DELETE FROM sessions WHERE token_hash = ?").run(tokenHash);
}

/** Ends every session of an account but `keep` (a password change signs the other browsers out); null ends them all. */
export function deleteOtherSessions(db: Database, accountId: number, keep: string | null): number {
  return db.query("DELETE FROM sessions WHERE account_id = ? AND token_hash IS NOT ?").run(accountId, keep).changes;
}
