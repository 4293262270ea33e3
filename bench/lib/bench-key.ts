import { join } from "node:path";
import { ACCOUNTS_FILE, openDatabase } from "../../src/db/open.ts";
import { ACCOUNT_MIGRATIONS } from "../../src/db/account-schema.ts";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

function randomBase62(length: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  let out = "";
  for (const b of bytes) out += BASE62[b % 62];
  return out;
}

/**
 * Creates a Pro account with an `sk_test_` key (never counted against the quota) in a data
 * dir's accounts database, stored as the access layer reads keys: SHA-256 hex of the whole key,
 * prefix and last 4 for display. Returns the key.
 */
export function createBenchKey(dataDir: string, label = "bench"): string {
  const db = openDatabase(join(dataDir, ACCOUNTS_FILE), ACCOUNT_MIGRATIONS);
  try {
    const key = "sk_test_" + randomBase62(32);
    const now = new Date().toISOString();
    const hash = new Bun.CryptoHasher("sha256").update(key).digest("hex");
    db.transaction(() => {
      const email = `${label}-${Date.now()}-${randomBase62(6)}@bench.invalid`;
      const { id } = db.query("INSERT INTO accounts (email, plan, created_at) VALUES (?, 'pro', ?) RETURNING id").get(email, now) as { id: number };
      db.run(
        "INSERT INTO api_keys (account_id, kind, hash, prefix, last4, name, created_at) VALUES (?, 'test', ?, ?, ?, ?, ?)",
        [id, hash, key.slice(0, 12), key.slice(-4), label, now],
      );
    })();
    return key;
  } finally {
    db.close();
  }
}

/** Settings that keep the rate limiter out of the way of a benchmark. */
export const BENCH_ENV: Record<string, string> = {
  MEHIR_RATE_FREE: "100000000",
  MEHIR_RATE_BASIC: "100000000",
  MEHIR_RATE_PRO: "100000000",
  MEHIR_RATE_ANONYMOUS: "100000000",
  MEHIR_WIDGET_RATE: "100000000",
  MEHIR_QUOTA_PRO: "100000000",
  MEHIR_SOURCE: "demo",
};
