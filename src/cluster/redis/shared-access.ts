import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { KeyCache } from "../../access/key-cache.ts";
import type { Settings } from "../../config.ts";
import { ACCOUNT_MIGRATIONS } from "../../db/account-schema.ts";
import { ACCOUNTS_FILE, openDatabase, type Databases } from "../../db/open.ts";
import type { AccessService } from "../../access/service.ts";
import { TokenBuckets } from "../../access/token-bucket.ts";
import { BunRedisStore } from "./bun-redis-store.ts";
import { KeyMirror, SharedKeyLookup } from "./key-directory.ts";
import { RedisMeter } from "./shared-meter.ts";
import { SharedQuotaLedger } from "./shared-quota-ledger.ts";
import { UsageSync } from "./usage-sync.ts";

type Log = (msg: string, fields?: Record<string, unknown>) => void;

export interface SharedAccess {
  /** The access service createServices takes instead of the in-process one. */
  access: AccessService;
  /** Starts the primary's key mirror and usage write-back (nothing on a replica). */
  start(): void;
  /** Stops them after a last write-back, and closes the Redis connections. */
  stop(): Promise<void>;
}

/**
 * A server's access layer with MEHIR_REDIS_URL (any role; null without it): rate limits and
 * quotas of keyed calls in Redis (RedisMeter: one script per metered request; SharedQuotaLedger
 * for the rest), keys from Redis on a replica (SharedKeyLookup) and from accounts.sqlite on the
 * primary or a standalone server, which keeps that file the system of record: it mirrors the
 * active keys into Redis (KeyMirror, on a connection of its own so PRAGMA data_version shows the
 * portal's and the CLI's commits) and writes the usage back (UsageSync). Limits of calls without
 * a key (per client address) stay per server.
 */
export function createSharedAccess(settings: Settings, databases: Databases, log: { warn: Log; error: Log }): SharedAccess | null {
  if (!settings.redisUrl) return null;
  const store = new BunRedisStore(settings.redisUrl);
  const replica = settings.role === "replica";
  // This server's own buckets: calls without a key, and a key's 304s (answered without Redis).
  const limiter = new TokenBuckets();
  const access: AccessService = {
    keys: replica ? new SharedKeyLookup(store) : new KeyCache(databases.accounts),
    limiter,
    quota: new SharedQuotaLedger(store, log.warn),
    meter: new RedisMeter(store, limiter),
    flush() {},
  };
  let mirrorDb: Database | null = null;
  let mirror: KeyMirror | null = null;
  let usage: UsageSync | null = null;
  return {
    access,
    start() {
      if (replica) return;
      mirrorDb = openDatabase(join(settings.dataDir, ACCOUNTS_FILE), ACCOUNT_MIGRATIONS);
      mirror = new KeyMirror(mirrorDb, store, { error: log.error }).start();
      usage = new UsageSync(databases.accounts, store, { error: log.error }).start();
    },
    async stop() {
      mirror?.stop();
      await usage?.stop();
      mirrorDb?.close();
      store.close();
    },
  };
}
