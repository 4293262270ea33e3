/**
 * The scale-out cluster with real servers on loopback (docs/operations.md "Scale out"): redis-server, a
 * primary on the demo data and three replicas, each `bun src/main.ts serve` in its own process
 * and data dir. Skipped, saying why, when redis-server is not installed (CI installs Debian's).
 * Server logs are kept and printed only when a test fails or times out. Waits are for the state
 * asked about (polled: Redis and other processes announce nothing a test can listen to), bounded
 * by the tests' timeouts rather than by how fast a quiet machine gets there.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { monthOf } from "../../src/accounts/utc-month.ts";
import { createAccount } from "../../src/accounts/accounts.ts";
import { createKey, revokeKeyById } from "../../src/accounts/keys.ts";
import { ACCOUNT_MIGRATIONS } from "../../src/db/account-schema.ts";
import { ACCOUNTS_FILE, openDatabase } from "../../src/db/open.ts";
import { eachLine, MAIN, tempRoot, twoDays } from "../helpers/faults/faults.ts";
import { redisSkipReason, TestRedis } from "../helpers/redis-server.ts";
import { withLogs as withLogsOf } from "../helpers/serve-process.ts";

if (redisSkipReason) console.warn(`skipping the loopback cluster test: ${redisSkipReason}`);
const describeCluster = redisSkipReason ? describe.skip : describe;

const SECRET = "loopback-cluster-secret-0123456789abcdef";
const BASIC_QUOTA = 100;

interface Server {
  name: string;
  proc: ReturnType<typeof Bun.spawn>;
  url: string;
  dir: string;
}

let root: string;
let redis: TestRedis;
let primary: Server;
let replicas: Server[] = [];
const logs: string[] = [];
/** Keeps the servers' last log lines (printed only when a test fails). */
function remember(line: string): void {
  logs.push(line);
  if (logs.length > 4000) logs.splice(0, 1000);
}
let barcode: string;
/** The second day's files (imported on the primary by a test). */
let day2: string;

function cli(...args: string[]): string {
  const out = Bun.spawnSync([process.execPath, MAIN, ...args], { stdout: "pipe", stderr: "pipe" });
  if (out.exitCode !== 0) throw new Error(`mehir ${args.join(" ")}: ${out.stderr.toString()}`);
  return out.stdout.toString();
}

/**
 * The primary's accounts.sqlite on a connection of its own, as `mehir accounts` / `mehir keys`
 * open it (the CLI itself is tested in test/cli; here its writes are what the cluster must see).
 */
function onPrimaryAccounts<T>(use: (db: Database) => T): T {
  const db = openDatabase(join(primary.dir, ACCOUNTS_FILE), ACCOUNT_MIGRATIONS);
  try {
    return use(db);
  } finally {
    db.close();
  }
}

/**
 * A new account on `plan` with a live key (on the primary's accounts.sqlite, as an operator does),
 * once the primary has mirrored it into Redis (within a second: replicas find it from then on).
 */
async function newKey(plan: "free" | "basic" | "pro"): Promise<{ key: string; accountId: number; keyId: number }> {
  const email = `dev-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const accountId = onPrimaryAccounts((db) => createAccount(db, { email, plan }, new Date()).id);
  return { ...(await anotherKey(accountId)), accountId };
}

/** Another live key of an existing account, once the primary has mirrored it into Redis. */
async function anotherKey(accountId: number): Promise<{ key: string; keyId: number }> {
  const { key, record } = onPrimaryAccounts((db) => createKey(db, { accountId, kind: "live" }, new Date()));
  const hash = new Bun.CryptoHasher("sha256").update(key).digest("hex");
  await until(async () => redis.cli("HEXISTS", "mehir:keys", hash) === "1");
  return { key, keyId: record.id };
}

async function start(name: string, env: Record<string, string>): Promise<Server> {
  const dir = join(root, name);
  const proc = Bun.spawn([process.execPath, MAIN, "serve"], {
    env: { ...process.env, MEHIR_LOG_LEVEL: "info", MEHIR_DATA_DIR: dir, MEHIR_HOST: "127.0.0.1", MEHIR_PORT: "0", MEHIR_EXPORTS: "off", MEHIR_CLUSTER_SECRET: SECRET, MEHIR_REDIS_URL: redis.url, MEHIR_QUOTA_BASIC: String(BASIC_QUOTA), MEHIR_RATE_BASIC: "1000000", MEHIR_RATE_PRO: "1000000", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const url = await new Promise<string>((resolve, reject) => {
    const drained = Promise.all([
      eachLine(proc.stdout as ReadableStream<Uint8Array>, (line) => {
        remember(`[${name}] ${line}`);
        const match = /"msg":"listening","url":"([^"]+)"/.exec(line);
        if (match) resolve(match[1]!);
      }),
      eachLine(proc.stderr as ReadableStream<Uint8Array>, (line) => remember(`[${name}!] ${line}`)),
    ]);
    void drained.then(() => reject(new Error(`${name} exited before listening`)));
  });
  return { name, proc, url, dir };
}

/**
 * Resolves once `check` holds (asked every 100 ms; a throw counts as not yet). No deadline of
 * its own: the test's timeout bounds it, sized for a loaded machine.
 */
async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check().catch(() => false))) await Bun.sleep(100);
}

const ready = (s: Server, version?: number) =>
  until(async () => {
    const res = await fetch(s.url + "/readyz");
    const body = (await res.json()) as { data_version: number };
    return res.status === 200 && (version === undefined || body.data_version === version);
  });

async function get(s: Server, path: string, key: string, headers: Record<string, string> = {}) {
  const res = await fetch(s.url + path, { headers: { "x-api-key": key, ...headers } });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

beforeAll(async () => {
  if (redisSkipReason) return;
  await withLogs(setUp)();
}, 240_000);

async function setUp() {
  root = tempRoot("cluster-e2e");
  redis = new TestRedis();
  await redis.start();
  // The primary on two days of small national-shaped files (the test is about the cluster, not the data).
  const days = twoDays(root, { stores: 4, itemsPerStore: 200, products: 800, chains: 2, promos: true });
  day2 = days.day2;
  cli("import", days.day1, "--data-dir", join(root, "primary"), "--source", "demo");
  primary = await start("primary", { MEHIR_ROLE: "primary" });
  await ready(primary);
  replicas = await Promise.all([1, 2, 3].map((n) => start(`replica${n}`, { MEHIR_ROLE: "replica", MEHIR_PRIMARY_URL: primary.url })));
  for (const r of replicas) await ready(r, 1);
  const db = new Database(join(primary.dir, "prices.sqlite"), { readonly: true });
  barcode = (db.query("SELECT p.barcode FROM products p JOIN price_current pc ON pc.product_id = p.id GROUP BY p.id ORDER BY count(*) DESC LIMIT 1").get() as { barcode: string }).barcode;
  db.close();
}

afterAll(async () => {
  for (const s of [...replicas, primary]) s?.proc.kill(9);
  await Promise.all([...replicas, primary].map((s) => s?.proc.exited));
  await redis?.dispose();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** The body of a test or hook, printing the servers' last log lines when it fails or times out. */
const withLogs = (body: () => Promise<void>) => withLogsOf(() => logs.slice(-200).join("\n"), body);

describeCluster("a primary and three replicas on loopback", () => {
  test("the replicas serve what the primary serves", withLogs(async () => {
    const { key } = await newKey("pro");
    for (const path of [`/api/v1/prices/?barcode=${barcode}`, "/api/v1/chains/", "/api/v1/stores/?limit=3"]) {
      const expected = await get(primary, path, key);
      expect(expected.status).toBe(200);
      for (const r of replicas) {
        // A key made a moment ago on the primary reaches the replicas through Redis.
        await until(async () => (await get(r, path, key)).status === 200);
        const answer = await get(r, path, key);
        expect(JSON.stringify(answer.body.data).replaceAll(r.url, primary.url)).toBe(JSON.stringify(expected.body.data));
      }
    }
  }), 60_000);

  test("quota exactness across replicas: 300 parallel calls against 100 remaining succeed exactly 100 times", withLogs(async () => {
    const { key } = await newKey("basic");
    const answers = await Promise.all(Array.from({ length: 300 }, (_, i) => get(replicas[i % 3]!, `/api/v1/prices/?barcode=${barcode}`, key)));
    const statuses = answers.map((a) => a.status);
    const codes = answers.filter((a) => a.status !== 200).map((a) => a.body.code as string);
    expect({ served: statuses.filter((s) => s === 200).length, refused: new Set(codes) }).toEqual({ served: BASIC_QUOTA, refused: new Set(["quota_exceeded"]) });
    expect(statuses.filter((s) => s === 429).length).toBe(300 - BASIC_QUOTA);
    expect(answers.filter((a) => a.status === 429).every((a) => a.body.code === "quota_exceeded")).toBe(true);
  }), 60_000);

  // Audit F2: the verdict kept so that a proxy's retry counts once was kept under the client's
  // X-Request-Id alone, so a fixed id replayed "allowed" for any key, any account, any request.
  test("a client's fixed X-Request-Id replays nothing: a Free key gets its burst (15), an account whose quota is spent stays refused with another's id", withLogs(async () => {
    const free = await newKey("free");
    const servers = [primary, replicas[0]!];
    const started = performance.now();
    // In parallel, alternating primary and replica, as the audit's reproduction.
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => get(servers[i % 2]!, "/api/v1/chains/", free.key, { "x-request-id": "replay-0001" })));
    const seconds = (performance.now() - started) / 1000;
    const served = answers.filter((a) => a.status === 200).length;
    // The burst, plus what the Free rate (60 a minute) refills while a loaded machine answers.
    expect(served).toBeGreaterThanOrEqual(15);
    expect(served).toBeLessThanOrEqual(15 + Math.floor(seconds));
    expect(answers.filter((a) => a.status !== 200).every((a) => a.status === 429 && a.body.code === "rate_limited")).toBe(true);
    // The answers carry the server's own ids, never the client's.
    expect(answers.every((a) => /^req_[0-9a-f]{32}$/.test(a.headers.get("x-request-id")!))).toBe(true);

    // Another account's request, counted with id replay-0002 ...
    const other = await newKey("basic");
    expect((await get(replicas[0]!, "/api/v1/chains/", other.key, { "x-request-id": "replay-0002" })).status).toBe(200);
    // ... and an account whose quota is spent, sending the same request with that id.
    const spent = await newKey("basic");
    const spending = await Promise.all(Array.from({ length: BASIC_QUOTA }, () => get(replicas[1]!, "/api/v1/chains/", spent.key)));
    expect(spending.every((a) => a.status === 200)).toBe(true);
    for (const s of servers) {
      const answer = await get(s, "/api/v1/chains/", spent.key, { "x-request-id": "replay-0002" });
      expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 429, code: "quota_exceeded" });
      expect(answer.headers.get("x-quota-remaining")).toBe("0");
    }
  }), 120_000);

  test("behind a trusted proxy (MEHIR_TRUST_PROXY) a retry with the same X-Request-Id counts once; the same id with another key or another URL counts anew", withLogs(async () => {
    // Two replicas that take the proxy's X-Request-Id (the others here do not trust one).
    const proxied = await Promise.all(["proxied1", "proxied2"].map((name) => start(name, { MEHIR_ROLE: "replica", MEHIR_PRIMARY_URL: primary.url, MEHIR_TRUST_PROXY: "on" })));
    try {
      await Promise.all(proxied.map((s) => ready(s)));
      const { key, accountId } = await newKey("basic");
      const second = await anotherKey(accountId);
      const counted = () => Number(redis.cli("GET", `mehir:q:account:${accountId}:${monthOf(new Date())}`));
      const id = { "x-request-id": "proxy-retry-0001" };
      const first = await get(proxied[0]!, "/api/v1/stores/?limit=2", key, id);
      expect(first.status).toBe(200);
      expect(first.headers.get("x-request-id")).toBe("proxy-retry-0001");
      expect(first.headers.get("x-quota-remaining")).toBe(String(BASIC_QUOTA - 1));
      // The proxy retries it on the other replica: the same verdict, nothing taken.
      const retry = await get(proxied[1]!, "/api/v1/stores/?limit=2", key, id);
      expect(retry.status).toBe(200);
      expect(retry.headers.get("x-quota-remaining")).toBe(String(BASIC_QUOTA - 1));
      expect(counted()).toBe(1);
      // The same id with another key of the account, then with another query: each metered on its own.
      const otherKey = await get(proxied[1]!, "/api/v1/stores/?limit=2", second.key, id);
      expect(otherKey.status).toBe(200);
      expect(otherKey.headers.get("x-quota-remaining")).toBe(String(BASIC_QUOTA - 2));
      const otherUrl = await get(proxied[0]!, "/api/v1/stores/?limit=3", key, id);
      expect(otherUrl.status).toBe(200);
      expect(otherUrl.headers.get("x-quota-remaining")).toBe(String(BASIC_QUOTA - 3));
      expect(counted()).toBe(3);
    } finally {
      for (const s of proxied) s.proc.kill(9);
      await Promise.all(proxied.map((s) => s.proc.exited));
    }
  }), 180_000);

  test("kill -9 of a replica under load: every answered call is counted", withLogs(async () => {
    const { key, accountId } = await newKey("pro");
    const victim = replicas[2]!;
    let served = 0;
    const load = Array.from({ length: 8 }, async () => {
      for (;;) {
        const res = await fetch(`${victim.url}/api/v1/prices/?barcode=${barcode}`, { headers: { "x-api-key": key } }).catch(() => null);
        if (!res) return;
        await res.arrayBuffer().catch(() => undefined);
        if (res.status === 200) served++;
      }
    });
    await until(async () => served >= 50);
    victim.proc.kill(9);
    await Promise.all(load);
    const counted = Number(redis.cli("GET", `mehir:q:account:${accountId}:${monthOf(new Date())}`));
    expect(served).toBeGreaterThan(0);
    // Counted but unserved is possible (killed mid-answer); served but uncounted is not.
    expect(counted).toBeGreaterThanOrEqual(served);
    // The primary writes the counts back to accounts.sqlite (absolute values).
    await until(async () => {
      const db = new Database(join(primary.dir, "accounts.sqlite"), { readonly: true });
      const { total } = db.query("SELECT coalesce(sum(count), 0) AS total FROM usage_daily WHERE subject = ?").get(`account:${accountId}`) as { total: number };
      db.close();
      return total === counted;
    });
    replicas[2] = await start("replica3b", { MEHIR_ROLE: "replica", MEHIR_PRIMARY_URL: primary.url });
    await ready(replicas[2]!);
  }), 120_000);

  test("an import on the primary reaches every replica, no error answered meanwhile", withLogs(async () => {
    const { key } = await newKey("pro");
    let served = 0;
    /** Every other answer, as the user got it (a failure names each: status, code and detail). */
    const refused: string[] = [];
    let asking = true;
    // Paced (the rate is not what is tested; an unpaced loop per replica starves the import on 2 cores).
    const load = replicas.map(async (r) => {
      while (asking) {
        const res = await fetch(`${r.url}/api/v1/prices/?barcode=${barcode}`, { headers: { "x-api-key": key } });
        const body = await res.text();
        if (res.status === 200) served++;
        else refused.push(`${new Date().toISOString()} ${r.name} ${res.status} ${body}`);
        await Bun.sleep(10);
      }
    });
    try {
      // In a process of its own, as an operator runs it, while the replicas are asked (not spawnSync:
      // that would stop the asking for the whole import).
      const importer = Bun.spawn([process.execPath, MAIN, "import", day2, "--data-dir", primary.dir, "--source", "demo"], { stdout: "pipe", stderr: "pipe" });
      const [out, err, code] = await Promise.all([new Response(importer.stdout).text(), new Response(importer.stderr).text(), importer.exited]);
      expect(code, `${out}\n${err}`).toBe(0);
      // Replicas poll the primary every 2 s (REPLICA_POLL_MS); how long the snapshot takes is the bench's business.
      for (const r of replicas) await ready(r, 2);
    } finally {
      asking = false;
      await Promise.all(load);
    }
    expect(refused, `answers other than 200 (of ${served} 200s):\n${refused.join("\n")}`).toEqual([]);
    expect(served).toBeGreaterThan(0);
  }), 300_000);

  test("Redis stopped: metered calls fail closed with 503 + Retry-After while it is down (no waiting for it); they recover by themselves when it returns", withLogs(async () => {
    const { key } = await newKey("pro");
    await until(async () => (await get(replicas[0]!, "/api/v1/chains/", key)).status === 200);
    const etags: string[] = [];
    for (const r of replicas) {
      const answer = await get(r, "/api/v1/chains/", key);
      expect(answer.status).toBe(200);
      etags.push(answer.headers.get("etag")!);
    }
    await redis.stop();
    try {
      // A 304 is decided without Redis: each replica's own bucket, the quota left as it last heard.
      for (const [i, r] of replicas.entries()) {
        const res = await fetch(r.url + "/api/v1/chains/", { headers: { "x-api-key": key, "if-none-match": etags[i]! } });
        expect(res.status).toBe(304);
        expect(Number(res.headers.get("x-quota-remaining"))).toBeGreaterThan(0);
      }
      // Answered while Redis is still down (it comes back only after these): bounded by the store's
      // timeout, not by Redis's return (the test's timeout catches a hang).
      for (const r of replicas) {
        const answer = await get(r, "/api/v1/chains/", key);
        expect(answer.status).toBe(503);
        expect(answer.body.code).toBe("service_unavailable");
        expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      }
      // Public probes do not need Redis.
      expect((await fetch(replicas[0]!.url + "/readyz")).status).toBe(200);
    } finally {
      await redis.start();
    }
    for (const r of replicas) await until(async () => (await get(r, "/api/v1/chains/", key)).status === 200);
  }), 120_000);

  test("a key revoked on the primary is refused on every replica once the primary announces it (about a second on a quiet machine)", withLogs(async () => {
    const { key, keyId } = await newKey("pro");
    // Each replica caches the key from its first lookup below, for 30 s at most (the TTL backstop).
    const cachedAt = Date.now();
    for (const r of replicas) await until(async () => (await get(r, "/api/v1/chains/", key)).status === 200);
    onPrimaryAccounts((db) => revokeKeyById(db, keyId, new Date()));
    for (const r of replicas) await until(async () => (await get(r, "/api/v1/chains/", key)).status === 401);
    // Refused before any cache entry could expire: the announcement reached them, not the TTL
    // backstop (a quiet machine takes about a second, README).
    expect(Date.now() - cachedAt).toBeLessThan(30_000);
  }), 120_000);
});
