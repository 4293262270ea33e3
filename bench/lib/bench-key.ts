import { join } from "node:path";
import { ACCOUNTS_FILE, openDatabase } from "../../src/db/open.ts";
import { ACCOUNT_MIGRATIONS } from "../../src/db/account-schema.ts";
import { createAccount } from "../../src/accounts/accounts.ts";
import { createKey } from "../../src/accounts/keys.ts";

/**
 * Creates a Pro account in a data dir's accounts database (through the access layer's own
 * functions) with an `sk_test_` key — never counted against the quota — and a publishable key
 * for the widget endpoint (any origin). Returns both keys.
 */
export function createBenchKeys(dataDir: string, label = "bench"): { secret: string; publishable: string } {
  const db = openDatabase(join(dataDir, ACCOUNTS_FILE), ACCOUNT_MIGRATIONS);
  try {
    const now = new Date();
    const account = createAccount(db, { email: `${label}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@bench.invalid`, plan: "pro" }, now);
    const secret = createKey(db, { accountId: account.id, kind: "test", name: label }, now).key;
    const publishable = createKey(db, { accountId: account.id, kind: "publishable", name: `${label} widget` }, now).key;
    return { secret, publishable };
  } finally {
    db.close();
  }
}

/** An `sk_live_` key of a new Pro account (live-only operations: price alerts, exports), counted against a quota BENCH_ENV raises. */
export function createLiveBenchKey(dataDir: string, label = "bench"): string {
  const db = openDatabase(join(dataDir, ACCOUNTS_FILE), ACCOUNT_MIGRATIONS);
  try {
    const now = new Date();
    const account = createAccount(db, { email: `${label}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@bench.invalid`, plan: "pro" }, now);
    return createKey(db, { accountId: account.id, kind: "live", name: label }, now).key;
  } finally {
    db.close();
  }
}

/** An `sk_test_` key of a new Pro account (see createBenchKeys). */
export function createBenchKey(dataDir: string, label = "bench"): string {
  return createBenchKeys(dataDir, label).secret;
}

/** Settings that keep rate limits and quotas out of the way of a benchmark. */
export const BENCH_ENV: Record<string, string> = {
  MEHIR_RATE_FREE: "100000000",
  MEHIR_RATE_BASIC: "100000000",
  MEHIR_RATE_PRO: "100000000",
  MEHIR_RATE_ANONYMOUS: "100000000",
  MEHIR_WIDGET_RATE: "100000000",
  MEHIR_WIDGET_QUOTA: "1000000000",
  MEHIR_QUOTA_PRO: "1000000000",
  MEHIR_SOURCE: "demo",
  // The metrics listener on a free port: a fixed one fails the start when another server holds it.
  MEHIR_METRICS_ADDR: "127.0.0.1:0",
};
