/**
 * The shared store and meter against a real redis-server on loopback (skipped when it is not
 * installed): bounded failures while Redis is down, recovery by itself when it is back (Bun's
 * client has had reconnect bugs: this is tested, not assumed), pub/sub across a restart, and the
 * meter's exactness under 300 parallel calls from three clients (three replicas), and 304s metered
 * without Redis.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { SharedMeter, type MeterRequest } from "../../src/cluster/redis/meter.ts";
import { RedisMeter } from "../../src/cluster/redis/shared-meter.ts";
import { TokenBuckets } from "../../src/access/token-bucket.ts";
import { redisKeys } from "../../src/cluster/redis/keys.ts";
import { StoreUnavailable } from "../../src/cluster/redis/shared-store.ts";
import { monthOf } from "../../src/accounts/utc-month.ts";
import { redisSuite } from "../helpers/redis-server.ts";
import { within } from "../helpers/within.ts";

/** How long state that Redis or a mirror's poll changes may take to show: a loaded machine's, not a quiet one's (returns as soon as it shows). */
const SETTLE_MS = 60_000;
// Waits on Redis and on other connections: sized for a loaded 2-core machine, not the 5 s default.
setDefaultTimeout(180_000);

const { describeRedis, redis, newStore } = redisSuite("the Redis store and meter tests", 500);

describeRedis("BunRedisStore", () => {
  test("fails within its timeout while Redis is down, and recovers by itself when it is back", async () => {
    const store = newStore(300);
    expect(await store.send("PING", [])).toBe("PONG");
    await redis.stop();
    for (let i = 0; i < 5; i++) {
      // Refused while Redis is down (it comes back only after these): the store's timeout bounds
      // each call, never a hang (the test's timeout would catch one).
      const error = await store.send("PING", []).catch((e) => e);
      expect(error).toBeInstanceOf(StoreUnavailable);
    }
    await redis.start();
    expect(await within(SETTLE_MS, () => store.send("PING", []).then((r) => r === "PONG", () => false))).toBe(true);
  });

  test("the timeout counts from the sending: a call followed by a stall of this thread longer than the timeout is still answered", async () => {
    const store = newStore(300);
    expect(await store.send("PING", [])).toBe("PONG");
    // The thread busy right after the call, in the same turn of the event loop (a cold answer or a
    // snapshot switch on a loaded machine): the command is written only after it; Redis is fine.
    const call = store.send("PING", []);
    // A few hops of the microtask queue (the store's own awaits before it sends), still this turn.
    for (let hop = 0; hop < 10; hop++) await null;
    const until = performance.now() + 900;
    while (performance.now() < until);
    expect(await call).toBe("PONG");
    // And a stall in a later turn, once the command was written and the clock started: the answer
    // waiting on the socket is read before the expired timer fires (what the fix relies on).
    const later = store.send("PING", []);
    for (let hop = 0; hop < 10; hop++) await null;
    await new Promise<void>((resolve) =>
      setImmediate(() => {
        const end = performance.now() + 900;
        while (performance.now() < end);
        resolve();
      }),
    );
    expect(await later).toBe("PONG");
  });

  test("a subscriber hears messages, reports the gap of a restart, and hears messages after it", async () => {
    const listener = newStore();
    const publisher = newStore();
    const heard: string[] = [];
    let gaps = 0;
    listener.subscribe("test:channel", (m) => heard.push(m), () => gaps++);
    expect(await within(SETTLE_MS, () => gaps === 1)).toBe(true);
    await publisher.publish("test:channel", "one");
    expect(await within(SETTLE_MS, () => heard.includes("one"))).toBe(true);
    await redis.stop();
    await redis.start();
    expect(await within(SETTLE_MS, () => gaps === 2)).toBe(true);
    expect(await within(SETTLE_MS, () => publisher.publish("test:channel", "two").then(() => heard.includes("two"), () => false))).toBe(true);
  });
});

describeRedis("SharedMeter", () => {
  const now = new Date();
  const month = monthOf(now);
  const request = (i: number, over: Partial<MeterRequest> = {}): MeterRequest => ({
    requestId: `req-${crypto.randomUUID()}-${i}`,
    bucketId: `key:${i % 7}`,
    perMinute: 1_000_000,
    quota: { subject: "account:1", limit: 100, calls: 1 },
    now,
    ...over,
  });

  test("300 parallel calls from three replicas against 100 remaining: exactly 100 succeed", async () => {
    const meters = [new SharedMeter(newStore(2000)), new SharedMeter(newStore(2000)), new SharedMeter(newStore(2000))];
    redis.cli("SET", redisKeys.seeded(month), "1");
    redis.cli("SET", redisKeys.month("account:1", month), "0");
    const verdicts = await Promise.all(Array.from({ length: 300 }, (_, i) => meters[i % 3]!.take(request(i))));
    const allowed = verdicts.filter((v) => v.outcome === "allowed");
    expect(allowed.length).toBe(100);
    expect(verdicts.filter((v) => v.outcome === "quota_exceeded").length).toBe(200);
    expect(new Set(allowed.map((v) => v.quotaRemaining))).toEqual(new Set(Array.from({ length: 100 }, (_, i) => i)));
    expect(redis.cli("GET", redisKeys.month("account:1", month))).toBe("100");
  });

  test("a request id is counted once: a retry on another replica gets the same verdict, nothing taken", async () => {
    redis.cli("SET", redisKeys.month("account:2", month), "0");
    const [a, b] = [new SharedMeter(newStore()), new SharedMeter(newStore())];
    const first = request(1, { quota: { subject: "account:2", limit: 10, calls: 1 } });
    const one = await a.take(first);
    const again = await b.take(first);
    expect(one).toMatchObject({ outcome: "allowed", quotaRemaining: 9, replayed: false });
    expect(again).toMatchObject({ outcome: "allowed", quotaRemaining: 9, replayed: true });
    expect(redis.cli("GET", redisKeys.month("account:2", month))).toBe("1");
    // A refund gives it back once; the id then counts again if retried.
    expect(await b.refund(first)).toBe(true);
    expect(await a.refund(first)).toBe(false);
    expect(redis.cli("GET", redisKeys.month("account:2", month))).toBe("0");
  });

  test("a counted verdict answers only the same request of the same key and account: the same id elsewhere is metered anew", async () => {
    redis.cli("SET", redisKeys.seeded(month), "1");
    redis.cli("SET", redisKeys.month("account:4", month), "0");
    redis.cli("SET", redisKeys.month("account:5", month), "5");
    const meter = new SharedMeter(newStore());
    const id = "GET /api/v1/chains/ replay-0001";
    const first = await meter.take(request(1, { requestId: id, bucketId: "key:40", quota: { subject: "account:4", limit: 5, calls: 1 } }));
    expect(first).toMatchObject({ outcome: "allowed", quotaRemaining: 4, replayed: false });
    // Another key of the same account, then a key of a spent account: counted (or refused) on their own.
    expect(await meter.take(request(2, { requestId: id, bucketId: "key:41", quota: { subject: "account:4", limit: 5, calls: 1 } }))).toMatchObject({ outcome: "allowed", quotaRemaining: 3, replayed: false });
    expect(await meter.take(request(3, { requestId: id, bucketId: "key:50", quota: { subject: "account:5", limit: 5, calls: 1 } }))).toMatchObject({ outcome: "quota_exceeded", quotaRemaining: 0, replayed: false });
    // Another request (path or query) with the same id, same key: counted on its own.
    expect(await meter.take(request(4, { requestId: "GET /api/v1/chains/?limit=1 replay-0001", bucketId: "key:40", quota: { subject: "account:4", limit: 5, calls: 1 } }))).toMatchObject({ outcome: "allowed", quotaRemaining: 2, replayed: false });
    // Nothing in Redis is named by the bare id.
    expect(redis.cli("KEYS", "*replay-0001*")).toBe("");
    expect(redis.cli("GET", redisKeys.month("account:4", month))).toBe("3");
  });

  test("the bucket: a quarter of the per-minute figure at once, then refused with Retry-After", async () => {
    const meter = new SharedMeter(newStore());
    const verdicts = [];
    for (let i = 0; i < 20; i++) verdicts.push(await meter.take(request(i, { bucketId: "key:bucket", perMinute: 60, quota: null })));
    expect(verdicts.filter((v) => v.outcome === "allowed").length).toBe(15);
    const refused = verdicts.at(-1)!;
    expect(refused).toMatchObject({ outcome: "rate_limited", rate: { allowed: false, limit: 60, remaining: 0 } });
    expect(refused.rate.retryAfter).toBeGreaterThanOrEqual(1);
  });

  test("a month whose usage is not loaded (Redis lost its data) fails closed until the primary loads it", async () => {
    const meter = new SharedMeter(newStore());
    redis.cli("DEL", redisKeys.seeded(month));
    const error = await meter.take(request(1, { quota: { subject: "account:3", limit: 10, calls: 1 } })).catch((e) => e);
    expect(error).toBeInstanceOf(StoreUnavailable);
    redis.cli("SET", redisKeys.seeded(month), "1");
    expect((await meter.take(request(2, { quota: { subject: "account:3", limit: 10, calls: 1 } }))).outcome).toBe("allowed");
  });
});

describeRedis("RedisMeter", () => {
  test("a 304 is answered without Redis: this server's own bucket and the quota left as it last heard; a subject it never heard of asks Redis", async () => {
    const now = new Date();
    redis.cli("SET", redisKeys.seeded(monthOf(now)), "1");
    const meter = new RedisMeter(newStore(300), new TokenBuckets());
    const ask = (subject: string, calls: number, notModified = false) =>
      meter.admit({ requestId: crypto.randomUUID(), bucket: { id: `key:${subject}`, perMinute: 600 }, quota: { subject, limit: 10, calls }, now, notModified });
    const counted = await ask("account:304", 1);
    expect(counted.quota).toMatchObject({ remaining: 9 });
    expect(counted.quota?.reservation).not.toBeNull();

    await redis.stop();
    try {
      const notModified = await ask("account:304", 0, true);
      expect(notModified).toMatchObject({ rate: { allowed: true, limit: 600 }, quota: { reservation: null, remaining: 9 } });
      // Anything else still needs Redis, and fails closed.
      expect(await Promise.resolve(ask("account:304", 1)).catch((e) => e)).toMatchObject({ code: "service_unavailable", status: 503 });
      expect(await Promise.resolve(ask("account:unheard", 0, true)).catch((e) => e)).toMatchObject({ code: "service_unavailable", status: 503 });
    } finally {
      await redis.start();
    }
  });
});
