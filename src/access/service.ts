import type { Database } from "bun:sqlite";
import { KeyCache } from "./key-cache.ts";
import type { KeyLookup } from "./key-lookup.ts";
import type { QuotaLedger } from "./quota-ledger.ts";
import { SqliteQuotaLedger } from "./sqlite-quota-ledger.ts";
import { LocalMeter, type Meter } from "./meter.ts";
import type { RateLimiter } from "./rate-limiter.ts";
import { TokenBuckets } from "./token-bucket.ts";

/**
 * The access layer's shared state, used by the request plugin and the portal: key lookup, rate
 * limits, quota counters, and the meter taking a request's token and quota in one step. Each is
 * an interface (see the files named), so a shared store can replace the in-process ones.
 * `flush()` writes pending usage (the plugin's onStop hook calls it when the app is stopped).
 */
export interface AccessService {
  keys: KeyLookup;
  limiter: RateLimiter;
  quota: QuotaLedger;
  meter: Meter;
  flush(): void;
}

/** The in-process access service: keys and usage in the accounts database, buckets in memory. */
export function createAccessService(accounts: Database, options: { clock?: () => number; flushMs?: number; pollMs?: number } = {}): AccessService {
  const quota = new SqliteQuotaLedger(accounts, { flushMs: options.flushMs });
  const limiter = new TokenBuckets(options.clock);
  return {
    keys: new KeyCache(accounts, { pollMs: options.pollMs, clock: options.clock }),
    limiter,
    quota,
    meter: new LocalMeter(limiter, quota),
    flush: () => void quota.flush(),
  };
}
