import type { Database } from "bun:sqlite";
import type { AccessContext } from "../../src/http/request/request-state.ts";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A publishable key in the accounts database, stored as the contract says (SHA-256 hash, prefix, last 4). */
export function insertPublishableKey(accounts: Database, opts: { email?: string; allowedOrigins?: string[] } = {}) {
  const random = crypto.getRandomValues(new Uint8Array(32));
  const key = "pk_live_" + Array.from(random, (b) => BASE62[b % 62]).join("");
  const now = new Date().toISOString();
  const account = accounts
    .query("INSERT INTO accounts (email, plan, created_at) VALUES (?, 'free', ?) ON CONFLICT (email) DO UPDATE SET plan = plan RETURNING id")
    .get(opts.email ?? "widget@example.com", now) as { id: number };
  const hash = new Bun.CryptoHasher("sha256").update(key).digest("hex");
  const row = accounts
    .query(
      `INSERT INTO api_keys (account_id, kind, hash, prefix, last4, name, allowed_origins, created_at)
       VALUES (?, 'publishable', ?, ?, ?, 'widget test', ?, ?) RETURNING id`,
    )
    .get(account.id, hash, key.slice(0, 12), key.slice(-4), JSON.stringify(opts.allowedOrigins ?? []), now) as { id: number };
  return { key, keyId: row.id, accountId: account.id };
}

/** The access layer's verdict for an accepted publishable key, as it records it on the request. */
export function publishableAccess(keyId: number, accountId: number, key: string): AccessContext {
  return {
    accountId,
    keyId,
    keyKind: "publishable",
    keyPrefix: key.slice(0, 12),
    plan: "free",
    quotaLimit: null,
    quotaRemaining: null,
    quotaReserved: false,
  };
}
