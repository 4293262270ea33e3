import type { Database } from "bun:sqlite";
import { KeyCache } from "./key-cache.ts";
import { QuotaLedger } from "./quota-ledger.ts";
import { RateLimiter } from "./token-bucket.ts";

/**
 * The access layer's state shared by the request plugin and the portal of one process: the
 * key cache, the rate-limit buckets and the quota counters. `flush()` writes pending usage
 * (call it at shutdown; the plugin's onStop hook does when the app is stopped).
 */
export interface AccessService {
  keys: KeyCache;
  limiter: RateLimiter;
  quota: QuotaLedger;
  flush(): void;
}

export function createAccessService(accounts: Database, options: { clock?: () => number; flushMs?: number; pollMs?: number } = {}): AccessService {
  const quota = new QuotaLedger(accounts, { flushMs: options.flushMs });
  return {
    keys: new KeyCache(accounts, { pollMs: options.pollMs, clock: options.clock }),
    limiter: new RateLimiter(options.clock),
    quota,
    flush: () => void quota.flush(),
  };
}

/** The service of an app's deps, created on first use (createApp works without one). */
export function accessOf(deps: { db: { accounts: Database }; access?: AccessService }): AccessService {
  return (deps.access ??= createAccessService(deps.db.accounts));
}
