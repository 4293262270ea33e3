import { afterAll, beforeAll, expect, test, setDefaultTimeout } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync, copyFileSync } from "node:fs";
import { join } from "node:path";
import { ACCOUNTS_FILE, PRICES_FILE } from "../../src/db/open.ts";
import { createAccount } from "../../src/accounts/accounts.ts";
import { createKey } from "../../src/accounts/keys.ts";
import { dayOneImported, MAIN, priceDigest, sandboxMade, tempRoot } from "../helpers/faults/faults.ts";
import { logsOf, ServeProcess, withLogs } from "../helpers/serve-process.ts";
import { usageWritten } from "../helpers/usage.ts";

// Starts processes, servers or workers: sized for a loaded 2-core machine, not the 5 s default.
setDefaultTimeout(180_000);

/**
 * The restore drill: `mehir backup` of a live `mehir serve` while requests flow, `mehir restore`
 * into a fresh data dir, a server started on it answers the same, with the same keys and usage.
 */
const root = tempRoot("restore-drill");
let dataDir = "";
let key = "";
let barcode = "";
let accountId = 0;
const servers: ServeProcess[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
  rmSync(root, { recursive: true, force: true });
});

async function serve(dir: string): Promise<string> {
  const server = await ServeProcess.start({ dataDir: dir, name: `serve ${servers.length + 1}` });
  servers.push(server);
  await server.ready();
  return server.url;
}

const cli = (...args: string[]) => {
  const run = Bun.spawnSync([process.execPath, MAIN, ...args], { stdout: "pipe", stderr: "pipe" });
  return { code: run.exitCode, out: run.stdout.toString(), err: run.stderr.toString() };
};

/** The answers compared across the two servers (`data` only: meta carries request ids and the quota). */
async function answers(url: string) {
  const out: Record<string, unknown> = {};
  for (const path of [`/api/v1/prices/?barcode=${barcode}`, `/api/v1/prices/?barcode=${barcode}&granularity=store`, `/api/v1/prices/${barcode}/history/?months=24`, "/api/v1/chains/", "/api/v1/promos/feed/?limit=100"]) {
    const res = await fetch(`${url}${path}`, { headers: { "x-api-key": key } });
    const body = (await res.json()) as { data: unknown };
    out[path] = { status: res.status, data: body.data };
  }
  return out;
}

const quotaRemaining = async (url: string) => {
  const res = await fetch(`${url}/api/v1/prices/?barcode=${barcode}`, { headers: { "x-api-key": key } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { meta: { quota_remaining: number } }).meta.quota_remaining;
};

const usedIn = (accountsFile: string) => {
  const db = new Database(accountsFile, { readonly: true });
  const { n } = db.query("SELECT coalesce(sum(count), 0) AS n FROM usage_daily WHERE subject = ?").get(`account:${accountId}`) as { n: number };
  const keys = db.query("SELECT id, kind, hash, prefix, last4, revoked_at FROM api_keys ORDER BY id").all();
  db.close();
  return { used: n, keys };
};

beforeAll(async () => {
  const imported = await dayOneImported(root, { stores: 6, itemsPerStore: 400, products: 1500, chains: 3, promos: true });
  ({ dataDir, barcode } = imported);
  const account = createAccount(imported.db.accounts, { email: "drill@example.com", plan: "pro" }, new Date());
  accountId = account.id;
  key = createKey(imported.db.accounts, { accountId: account.id, kind: "live" }, new Date()).key;
  createKey(imported.db.accounts, { accountId: account.id, kind: "publishable", origins: ["https://shop.example"] }, new Date());
  imported.db.prices.close();
  imported.db.accounts.close();
}, 180_000);

test("backup under load, restore into a fresh dir, serve it: same answers, keys and usage", withLogs(logsOf(servers), async () => {
  const url = await serve(dataDir);
  const before = await answers(url);
  await usageWritten(dataDir, accountId, 5);

  let stop = false;
  let served = 0;
  const traffic = (async () => {
    while (!stop) {
      const res = await fetch(`${url}/api/v1/prices/?barcode=${barcode}`, { headers: { "x-api-key": key } });
      await res.arrayBuffer();
      if (res.status === 200) served++;
      await Bun.sleep(2);
    }
  })();
  const backup = join(root, "backup");
  const proc = Bun.spawn([process.execPath, MAIN, "backup", backup, "--data-dir", dataDir], { stdout: "pipe", stderr: "pipe" });
  const [, backupErr, backupCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  stop = true;
  await traffic;
  expect(backupErr).toBe("");
  expect(backupCode).toBe(0);
  expect(served).toBeGreaterThan(0);

  // Into a non-empty folder: refused without --force, nothing touched.
  const busy = join(root, "busy");
  mkdirSync(busy);
  writeFileSync(join(busy, "notes.txt"), "keep me");
  const refused = cli("restore", backup, "--data-dir", busy);
  expect(refused.code).toBe(2);
  expect(refused.err).toMatch(/is not empty.*--force/);
  expect(readdirSync(busy)).toEqual(["notes.txt"]);

  // A damaged backup is refused before anything is copied.
  const damaged = join(root, "damaged");
  mkdirSync(damaged);
  copyFileSync(join(backup, ACCOUNTS_FILE), join(damaged, ACCOUNTS_FILE));
  const bytes = Buffer.from(await Bun.file(join(backup, PRICES_FILE)).arrayBuffer());
  bytes.fill(0x5a, 4096 * 2, 4096 * 6); // pages of its tables overwritten
  writeFileSync(join(damaged, PRICES_FILE), bytes);
  const bad = cli("restore", damaged, "--data-dir", join(root, "never"));
  expect(bad.code).not.toBe(0);
  expect(bad.err).toMatch(/damaged|not a readable database|malformed/);
  expect(() => statSync(join(root, "never", PRICES_FILE))).toThrow();

  const restored = join(root, "restored");
  const done = cli("restore", backup, "--data-dir", restored);
  expect(done.err).toBe("");
  expect(done.code).toBe(0);
  expect(done.out).toMatch(/restored: 1 accounts, 2 active keys, price data version 1/);
  for (const file of [ACCOUNTS_FILE, PRICES_FILE]) expect(statSync(join(restored, file)).mode & 0o077).toBe(0);
  expect(statSync(restored).mode & 0o077).toBe(0);
  const fromBackup = usedIn(join(backup, ACCOUNTS_FILE));
  expect(usedIn(join(restored, ACCOUNTS_FILE))).toEqual(fromBackup);
  expect(fromBackup.used).toBeGreaterThanOrEqual(5);

  // Only the sandbox (test keys' demo data, rebuilt at start when missing) is not in a backup: marked made to spare the CPU.
  sandboxMade(restored);
  const url2 = await serve(restored);
  const after = await answers(url2);
  expect(after).toEqual(before);
  // The key authenticates; the usage counted up to the backup is carried over (plus the calls above and this one).
  expect(await quotaRemaining(url2)).toBe(100_000 - fromBackup.used - Object.keys(after).length - 1);
  const live = new Database(join(dataDir, PRICES_FILE), { readonly: true });
  const copy = new Database(join(restored, PRICES_FILE), { readonly: true });
  expect(priceDigest(copy)).toBe(priceDigest(live));
  live.close();
  copy.close();

  // --force replaces the databases of a non-empty dir, other files stay.
  const forced = cli("restore", backup, "--data-dir", busy, "--force");
  expect(forced.code).toBe(0);
  expect(readdirSync(busy).sort()).toEqual([ACCOUNTS_FILE, "notes.txt", PRICES_FILE]);
}), 300_000);
