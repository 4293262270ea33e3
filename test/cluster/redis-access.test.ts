/**
 * Keys and usage shared through a real redis-server (skipped when it is not installed): the
 * primary mirrors accounts.sqlite's active keys, a replica finds them and refuses a revoked one
 * within a second; usage counted in Redis is written back to accounts.sqlite as absolute values
 * and loaded again after Redis lost its data.
 */
import { join } from "node:path";
import { expect, setDefaultTimeout, test } from "bun:test";
import { ACCOUNT_MIGRATIONS } from "../../src/db/account-schema.ts";
import { openDatabase } from "../../src/db/open.ts";
import { createAccount } from "../../src/accounts/accounts.ts";
import { createKey, revokeKeyById } from "../../src/accounts/keys.ts";
import { dayOf, monthOf } from "../../src/accounts/utc-month.ts";
import { BunRedisStore } from "../../src/cluster/redis/bun-redis-store.ts";
import { KeyMirror, SharedKeyLookup } from "../../src/cluster/redis/key-directory.ts";
import { SharedMeter } from "../../src/cluster/redis/meter.ts";
import { UsageSync } from "../../src/cluster/redis/usage-sync.ts";
import { StoreUnavailable } from "../../src/cluster/redis/shared-store.ts";
import { redisSuite } from "../helpers/redis-server.ts";
import { within } from "../helpers/within.ts";

/** How long state that Redis or a mirror's poll changes may take to show: a loaded machine's, not a quiet one's (returns as soon as it shows). */
const SETTLE_MS = 60_000;
// Waits on Redis and on other connections: sized for a loaded 2-core machine, not the 5 s default.
setDefaultTimeout(180_000);

const { describeRedis, redis, newStore } = redisSuite("the Redis key and usage tests", 1000);

describeRedis("keys through Redis", () => {
  test("a replica finds the primary's keys (hashes only in Redis) and refuses a revoked one as soon as the primary announces it", async () => {
    // The mirror reads on a connection of its own: PRAGMA data_version shows other connections' commits
    // (the portal's, or `mehir keys` in another process).
    const path = join(redis.dir, "accounts.sqlite");
    const db = openDatabase(path, ACCOUNT_MIGRATIONS);
    const account = createAccount(db, { email: "a@example.com", plan: "pro" }, new Date());
    const { key, record: stored } = createKey(db, { accountId: account.id, kind: "live" }, new Date());
    const mirrorDb = openDatabase(path, ACCOUNT_MIGRATIONS);
    const mirror = new KeyMirror(mirrorDb, newStore(), { pollMs: 50 }).start();
    // An hour's cache: a replica can only learn of the revocation from the primary's announcement, not
    // from its TTL backstop (how fast that is, a second or so, is measured by the cluster test and the bench).
    const replicas = [1, 2, 3].map(() => new SharedKeyLookup(newStore(), { ttlMs: 3_600_000 }));
    try {
      expect(await within(SETTLE_MS, async () => (await replicas[0]!.lookup(key))?.id === stored.id)).toBe(true);
      for (const replica of replicas) expect(await replica.lookup(key)).toMatchObject({ id: stored.id, accountId: account.id, plan: "pro", kind: "live" });
      // No key text in Redis: only hashes and records.
      expect(redis.cli("HGETALL", "mehir:keys")).not.toContain(key);
      expect(await replicas[0]!.lookup("sk_live_unknownunknownunknownunknown")).toBeNull();

      revokeKeyById(db, stored.id, new Date());
      for (const replica of replicas) expect(await within(SETTLE_MS, async () => (await replica.lookup(key)) === null)).toBe(true);
    } finally {
      mirror.stop();
      mirrorDb.close();
      db.close();
    }
  });

  test("after Redis lost its data the primary writes the keys again at once, and replicas find them", async () => {
    const path = join(redis.dir, "accounts-loss.sqlite");
    const db = openDatabase(path, ACCOUNT_MIGRATIONS);
    const account = createAccount(db, { email: "b@example.com", plan: "basic" }, new Date());
    const { key, record: stored } = createKey(db, { accountId: account.id, kind: "live" }, new Date());
    const mirror = new KeyMirror(db, newStore(), { pollMs: 50 }).start();
    const replica = new SharedKeyLookup(newStore());
    try {
      expect(await within(SETTLE_MS, async () => (await replica.lookup(key))?.id === stored.id)).toBe(true);
      redis.cli("FLUSHALL");
      expect(await within(SETTLE_MS, () => redis.cli("HLEN", "mehir:keys") === "1")).toBe(true);
      replica.invalidate();
      expect(await within(SETTLE_MS, async () => (await replica.lookup(key))?.id === stored.id)).toBe(true);
    } finally {
      mirror.stop();
      db.close();
    }
  });

  test("Redis unreachable: the lookup fails with 503 service_unavailable, not a hang", async () => {
    const lookup = new SharedKeyLookup(new BunRedisStore("redis://127.0.0.1:1", { timeoutMs: 200 }));
    // Bounded by the store's 200 ms timeout, never a hang (the test's timeout would catch one).
    const refused = await lookup.lookup("sk_live_abcdefabcdefabcdefabcdefabcdefab").catch((e) => e);
    expect(refused).toMatchObject({ code: "service_unavailable", status: 503 });
    // The cause is kept for the request's log line (error_reason), and not told to the client.
    expect(refused.options.reason).toMatch(/Redis/);
    expect(refused.message).not.toContain(refused.options.reason);
  });
});

describeRedis("usage through Redis", () => {
  test("written back as absolute values, and loaded again from accounts.sqlite after Redis lost its data", async () => {
    const db = openDatabase(":memory:", ACCOUNT_MIGRATIONS);
    const now = new Date();
    const subject = "account:77";
    db.run("INSERT INTO usage_daily (subject, day, count) VALUES (?, ?, ?)", [subject, dayOf(now), 5]);
    const store = newStore();
    const sync = new UsageSync(db, store, { now: () => now });
    redis.cli("DEL", `mehir:seeded:${monthOf(now)}`);
    expect(await sync.loadIfMissing()).toBe(true);
    expect(await sync.loadIfMissing()).toBe(false);

    const meter = new SharedMeter(newStore());
    const take = (i: number) => meter.take({ requestId: `usage-${i}-${crypto.randomUUID()}`, bucketId: "key:77", perMinute: 1_000_000, quota: { subject, limit: 10, calls: 1 }, now });
    const verdicts = await Promise.all(Array.from({ length: 8 }, (_, i) => take(i)));
    expect(verdicts.filter((v) => v.outcome === "allowed").length).toBe(5);

    await sync.writeBack();
    await sync.writeBack();
    const count = () => (db.query("SELECT count FROM usage_daily WHERE subject = ? AND day = ?").get(subject, dayOf(now)) as { count: number }).count;
    expect(count()).toBe(10);

    // Redis loses everything: metered calls fail closed until the primary loads the month again.
    redis.cli("FLUSHALL");
    expect(await take(100).catch((e) => e)).toBeInstanceOf(StoreUnavailable);
    await sync.sync();
    expect(await take(101)).toMatchObject({ outcome: "quota_exceeded", quotaRemaining: 0 });
    expect(count()).toBe(10);
    db.close();
  });
});
