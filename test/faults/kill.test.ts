import { afterAll, expect, test, setDefaultTimeout } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { ACCOUNTS_FILE, openDataDir, PRICES_FILE } from "../../src/db/open.ts";
import { createAccount } from "../../src/accounts/accounts.ts";
import { createKey } from "../../src/accounts/keys.ts";
import { importPaths } from "../../src/ingest/run/import.ts";
import { loadRegistry } from "../../src/registry.ts";
import { FLUSH_SLACK_MS, priceDigest, someBarcode, tempRoot, twoDays, USAGE_FLUSH_MS, watchTimerLateness } from "../helpers/faults/faults.ts";

// Starts processes, servers or workers: sized for a loaded 2-core machine, not the 5 s default.
setDefaultTimeout(180_000);

/**
 * SIGKILL of the serving process at random points of an import it runs in a worker thread (the
 * live mode's daily fetch), while it answers and counts requests of a live key. After each kill,
 * from the files left behind: both databases pass integrity_check, the price data is the old
 * snapshot or the new one, never a mix, every account and key is still there (and the key still
 * works after a restart), and the usage count lost nothing that was written: it holds at least
 * every counted answer given more than one flush interval (the README's bound: the last second,
 * see USAGE_FLUSH_MS) before the kill, and never more than were given.
 * The real `mehir serve` and `mehir import` processes are killed by processes.test.ts.
 */
const CHILD = join(import.meta.dir, "../helpers/faults/serve-and-import.ts");
const root = tempRoot("kill");
const { day1, day2 } = twoDays(root, { stores: 16, itemsPerStore: 1200, products: 5000, chains: 3, promos: true });
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Child {
  proc: Subprocess<"ignore", "pipe", "ignore">;
  url: string;
  events: { event: string; at: number }[];
}

async function start(dataDir: string, importAfter?: number): Promise<Child> {
  const args = [process.execPath, CHILD, "--data-dir", dataDir];
  if (importAfter !== undefined) args.push("--import-after", String(importAfter), day2);
  const proc = Bun.spawn(args, {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "ignore",
    env: { ...process.env, MEHIR_LOG_LEVEL: "error", MEHIR_RATE_PRO: "1000000", MEHIR_QUOTA_PRO: "1000000" },
  });
  const child: Child = { proc, url: "", events: [] };
  const reader = proc.stdout.getReader();
  let buffered = "";
  const ready = Promise.withResolvers<void>();
  (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffered += new TextDecoder().decode(value);
      let nl: number;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const line = JSON.parse(buffered.slice(0, nl)) as { event: string; url?: string };
        buffered = buffered.slice(nl + 1);
        child.events.push({ event: line.event, at: performance.now() });
        if (line.event === "ready") {
          child.url = line.url!;
          ready.resolve();
        }
      }
    }
  })();
  await ready.promise;
  return child;
}

async function waitFor(child: Child, event: string, ms = 120_000): Promise<number> {
  const deadline = performance.now() + ms;
  for (;;) {
    const hit = child.events.find((e) => e.event === event);
    if (hit) return hit.at;
    if (performance.now() > deadline) throw new Error(`no ${event} within ${ms} ms`);
    await Bun.sleep(5);
  }
}

/** Copies a data dir at rest (WAL files too: a closed bun:sqlite handle may not have checkpointed yet). */
function copyDir(from: string, name: string): string {
  const dir = join(root, name);
  mkdirSync(dir);
  for (const file of [PRICES_FILE, ACCOUNTS_FILE]) {
    for (const suffix of ["", "-wal", "-shm"]) if (existsSync(join(from, file + suffix))) copyFileSync(join(from, file + suffix), join(dir, file + suffix));
  }
  return dir;
}

/** What the files of a data dir hold. */
function inspect(dataDir: string, accountId: number) {
  const db = openDataDir(dataDir);
  try {
    return {
      digest: priceDigest(db.prices),
      pricesIntegrity: db.prices.query("PRAGMA integrity_check").get(),
      accountsIntegrity: db.accounts.query("PRAGMA integrity_check").get(),
      accounts: (db.accounts.query("SELECT count(*) AS n FROM accounts").get() as { n: number }).n,
      keys: (db.accounts.query("SELECT count(*) AS n FROM api_keys WHERE revoked_at IS NULL").get() as { n: number }).n,
      usage: (db.accounts.query("SELECT coalesce(sum(count), 0) AS n FROM usage_daily WHERE subject = ?").get(`account:${accountId}`) as { n: number }).n,
    };
  } finally {
    db.prices.close();
    db.accounts.close();
  }
}

test("SIGKILL of the serving process mid-import: old or new data, no account, key or written usage lost", async () => {
  // Base: day 1 imported, an account with a live key and some usage already written.
  const base = join(root, "base");
  const db = openDataDir(base);
  await importPaths({ db: db.prices, registry: loadRegistry(), paths: [day1], origin: "cli", source: "live" });
  const barcode = someBarcode(db.prices);
  const account = createAccount(db.accounts, { email: "kill@example.com", plan: "pro" }, new Date());
  const key = createKey(db.accounts, { accountId: account.id, kind: "live" }, new Date()).key;
  createKey(db.accounts, { accountId: account.id, kind: "publishable" }, new Date());
  db.accounts.run("INSERT INTO usage_daily (subject, day, count) VALUES (?, '2026-01-15', 40)", [`account:${account.id}`]);
  const old = priceDigest(db.prices);
  db.prices.run("PRAGMA wal_checkpoint(TRUNCATE)");
  db.accounts.run("PRAGMA wal_checkpoint(TRUNCATE)");
  db.prices.close();
  db.accounts.close();
  const baseline = inspect(base, account.id);

  // Calibration: the whole import without a kill gives the new snapshot and its duration.
  const full = copyDir(base, "full");
  const calm = await start(full, 100);
  const t0 = await waitFor(calm, "import-start");
  const duration = (await waitFor(calm, "import-done")) - t0;
  calm.proc.kill("SIGTERM");
  await calm.proc.exited;
  const next = inspect(full, account.id).digest;
  expect(next).not.toBe(old);

  const outcomes: string[] = [];
  for (let round = 0; round < 3; round++) {
    const dir = copyDir(base, `kill${round}`);
    const child = await start(dir, 300);
    // Requests with the live key until the kill: each 200 counts one unit.
    const answered: number[] = [];
    let killed = false;
    const load = (async () => {
      while (!killed) {
        try {
          const res = await fetch(`${child.url}/api/v1/prices/?barcode=${barcode}`, { headers: { "x-api-key": key } });
          await res.arrayBuffer();
          if (res.status === 200) answered.push(performance.now());
          // Paced: the rate is not what is tested, and an unpaced loop starves the processes under test on 2 cores.
          await Bun.sleep(2);
        } catch {
          // the kill
        }
      }
    })();
    const lateness = watchTimerLateness();
    const importStart = await waitFor(child, "import-start");
    await Bun.sleep(Math.max(0, duration * (0.1 + 0.85 * Math.random()) - (performance.now() - importStart)));
    const killAt = performance.now();
    child.proc.kill("SIGKILL");
    const slack = FLUSH_SLACK_MS + lateness.stop();
    killed = true;
    await child.proc.exited;
    await load;

    const after = inspect(dir, account.id);
    expect(after.pricesIntegrity).toEqual({ integrity_check: "ok" });
    expect(after.accountsIntegrity).toEqual({ integrity_check: "ok" });
    expect([old, next]).toContain(after.digest);
    outcomes.push(after.digest === old ? "old" : "new");
    expect(after.accounts).toBe(baseline.accounts);
    expect(after.keys).toBe(baseline.keys);
    const written = after.usage - baseline.usage;
    const safelyBefore = answered.filter((t) => t < killAt - USAGE_FLUSH_MS - slack).length;
    expect(written).toBeGreaterThanOrEqual(safelyBefore);
    expect(written).toBeLessThanOrEqual(answered.length);

    // After a restart the key works and the quota figure continues from the written count.
    const again = await start(dir);
    const res = await fetch(`${again.url}/api/v1/prices/?barcode=${barcode}`, { headers: { "x-api-key": key } });
    const body = (await res.json()) as { meta: { quota_remaining: number } };
    expect(res.status).toBe(200);
    // This month's figure: the base's 40 were in January.
    expect(body.meta.quota_remaining).toBe(1_000_000 - (after.usage - baseline.usage) - 1);
    again.proc.kill("SIGTERM");
    await again.proc.exited;
  }
  // At least one kill must have landed before the commit for the test to mean something.
  expect(outcomes).toContain("old");
}, 240_000);
