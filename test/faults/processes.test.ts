import { afterAll, beforeAll, expect, test, setDefaultTimeout } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { ACCOUNTS_FILE, openDataDir, PRICES_FILE } from "../../src/db/open.ts";
import { createAccount } from "../../src/accounts/accounts.ts";
import { createKey } from "../../src/accounts/keys.ts";
import { dayOneImported, FLUSH_SLACK_MS, MAIN, priceDigest, tempRoot, USAGE_FLUSH_MS, watchTimerLateness } from "../helpers/faults/faults.ts";
import { logsOf, ServeProcess, withLogs } from "../helpers/serve-process.ts";

// Starts processes, servers or workers: sized for a loaded 2-core machine, not the 5 s default.
setDefaultTimeout(60_000);

/**
 * Faults of the processes an operator runs — `bun src/main.ts serve` and `bun src/main.ts import`,
 * exactly as `mehir serve` / `mehir import` — on one data dir:
 *
 * 1. `mehir import` SIGKILLed at stratified random points spread over its whole run (process
 *    start, reading, loading, the final writes) and past its end, plus once right at the switch
 *    (the moment the new data version becomes visible), while `mehir serve` answers a live key.
 *    The server keeps answering throughout, every answer is the old or the new snapshot's, and
 *    afterwards the files hold the old snapshot or the new one (integrity_check ok), the server
 *    serves what the files hold, no account or key is lost and every counted call is written
 *    (the server stops gracefully: exact).
 * 2. `mehir serve` SIGKILLed at random points while it answers a live key and a separate
 *    `mehir import` runs: the import is unaffected (commits the new snapshot), and the usage
 *    written holds every call answered more than the README's bound before the kill (counts are
 *    written 1 s after the first call of a batch; FLUSH_SLACK_MS covers the timer's lateness on
 *    a busy machine, plus the machine's own timer lateness) and never more than were answered;
 *    after a restart the key works and the quota continues from the written count.
 *
 * Servers are `ServeProcess`es: their logs are printed only when a test fails. Every wait is for
 * an event (a log line, /readyz at a data version, an answer naming a version): none assumes a
 * quiet machine, the tests' timeouts bound them.
 */
const QUOTA = 1_000_000;
const root = tempRoot("processes");
let day2 = "";
let base = "";
let key = "";
let accountId = 0;
let barcode = "";
let old = "";
let next = "";
let oldAnswer = "";
let newAnswer = "";
/** The data versions of the old and the new snapshot. */
let oldVersion = 0;
let newVersion = 0;
let importMs = 0;
let baseline: ReturnType<typeof inspect>;
afterAll(async () => {
  for (const server of servers) await server.stop("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

const SERVER_ENV = { MEHIR_QUOTA_PRO: String(QUOTA), MEHIR_RATE_PRO: "1000000", MEHIR_IMPORT_PRIORITY: "normal", MEHIR_SOURCE: "demo" };
const ENV = { ...process.env, MEHIR_LOG_LEVEL: "info", ...SERVER_ENV };

/** The servers of the running test (their logs, shown if it fails). */
const servers: ServeProcess[] = [];
const logs = logsOf(servers);

/** `bun src/main.ts serve` on a free loopback port (its log kept); resolves once it listens. */
async function serve(dataDir: string): Promise<ServeProcess> {
  const server = await ServeProcess.start({ dataDir, env: SERVER_ENV, name: `serve ${servers.length + 1}` });
  servers.push(server);
  return server;
}

function importProcess(dataDir: string): Subprocess<"ignore", "ignore", "pipe"> {
  return Bun.spawn([process.execPath, MAIN, "import", day2, "--data-dir", dataDir, "--json"], { stdin: "ignore", stdout: "ignore", stderr: "pipe", env: ENV });
}

/** The data version in a data dir's prices database, as readers see it now. */
function versionOnDisk(dataDir: string): number {
  const db = new Database(join(dataDir, PRICES_FILE), { readonly: true });
  try {
    return Number((db.query("SELECT value FROM meta WHERE key = 'data_version'").get() as { value: string }).value);
  } finally {
    db.close();
  }
}

/**
 * The `data` part of the prices answer (meta differs per request) and the data version it was
 * computed on (its ETag names it: just after an import a busy server may still answer from the
 * previous version while it recomputes, by design — see AnswerCache).
 */
async function answer(url: string): Promise<{ status: number; data: string; version: number; quotaRemaining?: number }> {
  const res = await fetch(`${url}/api/v1/prices/?barcode=${barcode}`, { headers: { "x-api-key": key } });
  const body = (await res.json()) as { data?: unknown; meta?: { quota_remaining?: number } };
  const version = Number(/^W\/"(\d+)-/.exec(res.headers.get("etag") ?? "")?.[1] ?? NaN);
  return { status: res.status, data: JSON.stringify(body.data), version, quotaRemaining: body.meta?.quota_remaining };
}

/** The answer a snapshot's version gives (every answer names its version: it must be that version's). */
const answerOf = (version: number) => (version === oldVersion ? oldAnswer : version === newVersion ? newAnswer : `no snapshot has version ${version}`);

/**
 * Once the server serves `version` (/readyz), the first answer computed on it; every answer on
 * the way must be its own version's (old or new snapshot whole).
 */
async function answerAt(server: ServeProcess, version: number) {
  await server.readyAt(version);
  for (;;) {
    const a = await answer(server.url);
    expect(a.status).toBe(200);
    expect(a.data).toBe(answerOf(a.version));
    if (a.version === version) return a;
  }
}

/** Requests with the live key, one at a time, until stopped: the time of each counted (200) answer and what it said. */
function load(url: string) {
  const answered: number[] = [];
  const seen = new Set<string>();
  let stop = false;
  let firstAnswered!: () => void;
  const first = new Promise<void>((resolve) => (firstAnswered = resolve));
  const done = (async () => {
    while (!stop) {
      try {
        const a = await answer(url);
        if (a.status === 200) {
          if (answered.length === 0) firstAnswered();
          answered.push(performance.now());
          seen.add(`${a.version} ${a.data}`);
        }
        // Paced: the rate is not what is tested, and an unpaced loop starves the processes under test on 2 cores.
        await Bun.sleep(2);
      } catch {
        // the server was killed
        await Bun.sleep(5);
      }
    }
  })();
  return {
    answered,
    seen,
    /** Settles at the first 200 answer. */
    first,
    async stop() {
      stop = true;
      await done;
    },
  };
}

function copyDir(from: string, name: string): string {
  const dir = join(root, name);
  mkdirSync(dir);
  for (const file of [PRICES_FILE, ACCOUNTS_FILE]) {
    for (const suffix of ["", "-wal", "-shm"]) if (existsSync(join(from, file + suffix))) copyFileSync(join(from, file + suffix), join(dir, file + suffix));
  }
  return dir;
}

function inspect(dataDir: string) {
  const db = openDataDir(dataDir);
  try {
    return {
      digest: priceDigest(db.prices),
      pricesIntegrity: db.prices.query("PRAGMA integrity_check").get(),
      accountsIntegrity: db.accounts.query("PRAGMA integrity_check").get(),
      version: Number((db.prices.query("SELECT value FROM meta WHERE key = 'data_version'").get() as { value: string }).value),
      accounts: JSON.stringify(db.accounts.query("SELECT id, email, plan FROM accounts ORDER BY id").all()),
      keys: JSON.stringify(db.accounts.query("SELECT id, account_id, kind, revoked_at FROM api_keys ORDER BY id").all()),
      usage: (db.accounts.query("SELECT coalesce(sum(count), 0) AS n FROM usage_daily WHERE subject = ?").get(`account:${accountId}`) as { n: number }).n,
    };
  } finally {
    db.prices.close();
    db.accounts.close();
  }
}

async function stopGracefully(server: ServeProcess) {
  expect(await server.stop("SIGTERM")).toBe(0);
}

beforeAll(withLogs(logs, async () => {
  const imported = await dayOneImported(root, { stores: 8, itemsPerStore: 1000, products: 4000, chains: 3, promos: true }, "base");
  ({ day2, dataDir: base, barcode } = imported);
  const db = imported.db;
  const account = createAccount(db.accounts, { email: "faults@example.com", plan: "pro" }, new Date());
  accountId = account.id;
  key = createKey(db.accounts, { accountId, kind: "live" }, new Date()).key;
  createKey(db.accounts, { accountId, kind: "publishable" }, new Date());
  db.accounts.run("INSERT INTO usage_daily (subject, day, count) VALUES (?, '2026-01-15', 40)", [`account:${accountId}`]);
  db.prices.run("PRAGMA wal_checkpoint(TRUNCATE)");
  db.accounts.run("PRAGMA wal_checkpoint(TRUNCATE)");
  db.prices.close();
  db.accounts.close();
  baseline = inspect(base);
  old = baseline.digest;
  oldVersion = baseline.version;

  // Calibration: the whole `mehir import` without a kill (its duration, from spawn to exit), and
  // the answers of the old and the new snapshot.
  const full = copyDir(base, "full");
  const t0 = performance.now();
  const calm = importProcess(full);
  expect(await calm.exited).toBe(0);
  importMs = performance.now() - t0;
  ({ digest: next, version: newVersion } = inspect(full));
  expect(next).not.toBe(old);
  expect(newVersion).toBeGreaterThan(oldVersion);
  for (const [dir, set] of [[copyDir(base, "answer-old"), (s: string) => (oldAnswer = s)], [copyDir(full, "answer-new"), (s: string) => (newAnswer = s)]] as const) {
    const server = await serve(dir);
    await server.ready();
    const a = await answer(server.url);
    expect(a.status).toBe(200);
    set(a.data);
    await stopGracefully(server);
  }
  expect(newAnswer).not.toBe(oldAnswer);
  servers.length = 0;
}), 300_000);

test("SIGKILL of `mehir import` at random points of its whole run and at the switch, while `mehir serve` answers: old or new snapshot, served and on disk; nothing of accounts, keys or usage lost", withLogs(logs, async () => {
  // Calibration under the same conditions (the server answering beside the import): when the
  // new data version becomes visible to readers (the switch) and when the process exits.
  let commitAt = 0;
  let exitAt = 0;
  {
    const dir = copyDir(base, "import-calm");
    const server = await serve(dir);
    await server.ready();
    const traffic = load(server.url);
    const t0 = performance.now();
    const child = importProcess(dir);
    const reader = new Database(join(dir, PRICES_FILE), { readonly: true });
    const version = () => (reader.query("SELECT value FROM meta WHERE key = 'data_version'").get() as { value: string }).value;
    const before = version();
    let exited = false;
    void child.exited.then(() => (exited = true));
    while (version() === before && !exited) await Bun.sleep(1);
    commitAt = performance.now() - t0;
    reader.close();
    expect(await child.exited).toBe(0);
    exitAt = performance.now() - t0;
    await traffic.stop();
    await stopGracefully(server);
    expect(inspect(dir).digest).toBe(next);
  }

  const ROUNDS = 5;
  const outcomes: string[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const dir = copyDir(base, `import-kill-${round}`);
    const server = await serve(dir);
    await server.ready();
    const traffic = load(server.url);
    const child = importProcess(dir);
    if (round < ROUNDS) {
      // Stratified over the calibrated run and a little past its exit, so start-up, loading, the
      // final writes, the commit and the exit all get their turn across rounds and runs.
      await Bun.sleep(exitAt * 1.05 * ((round + Math.random()) / ROUNDS));
    } else {
      // The switch: as soon as a reader sees the new data version, the importer is killed
      // (it is writing its run report, checkpointing and closing).
      const reader = new Database(join(dir, PRICES_FILE), { readonly: true });
      const version = () => (reader.query("SELECT value FROM meta WHERE key = 'data_version'").get() as { value: string }).value;
      const before = version();
      let exited = false;
      void child.exited.then(() => (exited = true));
      while (version() === before && !exited) await Bun.sleep(1);
      reader.close();
    }
    child.kill("SIGKILL");
    await child.exited;

    // The server follows whatever was committed (it polls the data version every second) and
    // answers it: wait for /readyz at the version on disk, then for an answer computed on it.
    const now = await answerAt(server, versionOnDisk(dir));
    await traffic.stop();
    for (const seen of traffic.seen) expect([`${oldVersion} ${oldAnswer}`, `${newVersion} ${newAnswer}`]).toContain(seen);
    expect(traffic.answered.length).toBeGreaterThan(0);
    const counted = traffic.answered.length + 1;
    await stopGracefully(server);

    const after = inspect(dir);
    expect(after.pricesIntegrity).toEqual({ integrity_check: "ok" });
    expect(after.accountsIntegrity).toEqual({ integrity_check: "ok" });
    expect([old, next]).toContain(after.digest);
    expect(now.data).toBe(after.digest === old ? oldAnswer : newAnswer);
    outcomes.push(after.digest === old ? "old" : "new");
    expect(after.accounts).toBe(baseline.accounts);
    expect(after.keys).toBe(baseline.keys);
    // A graceful stop writes every count: exact.
    expect(after.usage - baseline.usage).toBe(counted);
  }
  if (process.env.FAULTS_VERBOSE) console.error("import ms", Math.round(importMs), "beside serve: switch", Math.round(commitAt), "exit", Math.round(exitAt), outcomes);
  // The kills landed both before the commit and after it.
  expect(outcomes).toContain("old");
  expect(outcomes).toContain("new");
  expect(outcomes[ROUNDS]).toBe("new");
  servers.length = 0;
}), 400_000);

test("SIGKILL of `mehir serve` at random points while it answers and `mehir import` runs beside it: the import commits, usage loses at most the last second, the key works after a restart", withLogs(logs, async () => {
  for (let round = 0; round < 3; round++) {
    const dir = copyDir(base, `serve-kill-${round}`);
    const server = await serve(dir);
    await server.ready();
    const traffic = load(server.url);
    const child = importProcess(dir);
    const lateness = watchTimerLateness();
    // Counted answers exist before the kill whatever the machine's load (wait on the first answer,
    // then past a flush); long enough for several flushes, sometimes while the import runs, sometimes after it.
    await traffic.first;
    await Bun.sleep(USAGE_FLUSH_MS + FLUSH_SLACK_MS + 200 + Math.random() * (importMs + 1500));
    // On a loaded machine: past the first answer by the bound with the lateness seen so far.
    while (performance.now() - traffic.answered[0]! < USAGE_FLUSH_MS + FLUSH_SLACK_MS + lateness.worst() + 200) await Bun.sleep(20);
    const killAt = performance.now();
    await server.stop("SIGKILL");
    const slack = FLUSH_SLACK_MS + lateness.stop();
    await traffic.stop();
    expect(await child.exited).toBe(0);

    const after = inspect(dir);
    expect(after.pricesIntegrity).toEqual({ integrity_check: "ok" });
    expect(after.accountsIntegrity).toEqual({ integrity_check: "ok" });
    expect(after.digest).toBe(next);
    expect(after.accounts).toBe(baseline.accounts);
    expect(after.keys).toBe(baseline.keys);
    const written = after.usage - baseline.usage;
    const safelyBefore = traffic.answered.filter((t) => t < killAt - USAGE_FLUSH_MS - slack).length;
    expect(safelyBefore).toBeGreaterThan(0);
    expect(written).toBeGreaterThanOrEqual(safelyBefore);
    expect(written).toBeLessThanOrEqual(traffic.answered.length);

    const again = await serve(dir);
    await again.ready();
    const a = await answer(again.url);
    expect(a.status).toBe(200);
    expect(a.data).toBe(newAnswer);
    // This month's figure continues from the written count (the base's 40 were in January).
    expect(a.quotaRemaining).toBe(QUOTA - written - 1);
    await stopGracefully(again);
  }
  servers.length = 0;
}), 400_000);
