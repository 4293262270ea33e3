import { afterAll, beforeAll, expect, test, setDefaultTimeout } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync, mkdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { ACCOUNTS_FILE, openDataDir, PRICES_FILE } from "../../src/db/open.ts";
import { createAccount } from "../../src/accounts/accounts.ts";
import { createKey } from "../../src/accounts/keys.ts";
import { dayOneImported, MAIN, priceDigest, tempRoot } from "../helpers/faults/faults.ts";
import { logsOf, ServeProcess, withLogs } from "../helpers/serve-process.ts";
import { usageWritten } from "../helpers/usage.ts";

// Starts processes, servers or workers: sized for a loaded 2-core machine, not the 5 s default.
setDefaultTimeout(180_000);

/**
 * `mehir backup DIR` (bun src/main.ts backup) while `mehir serve` answers and writes usage and a
 * separate `mehir import` runs: it succeeds, each copy is a consistent database (integrity_check,
 * price data the old or the new snapshot whole), and a server started on the restored copies
 * answers with the same data, accounts and keys, the usage written before the backup included.
 */
const root = tempRoot("backup-live");
let day2 = "";
let dataDir = "";
let key = "";
let barcode = "";
let old = "";
let accountId = 0;
const servers: ServeProcess[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
  rmSync(root, { recursive: true, force: true });
});

/** `mehir serve` on `dir`, ready; its URL. */
async function serve(dir: string): Promise<string> {
  const server = await ServeProcess.start({ dataDir: dir, name: `serve ${servers.length + 1}` });
  servers.push(server);
  await server.ready();
  return server.url;
}

const ask = async (url: string) => {
  const res = await fetch(`${url}/api/v1/prices/?barcode=${barcode}`, { headers: { "x-api-key": key } });
  const body = (await res.json()) as { data: unknown; meta: { data_version: number; quota_remaining: number } };
  return { status: res.status, data: JSON.stringify(body.data), meta: body.meta };
};

beforeAll(async () => {
  // Enough rows that the backup overlaps the import, few enough for a loaded machine.
  const imported = await dayOneImported(root, { stores: 6, itemsPerStore: 1000, products: 4000, chains: 3, promos: true });
  ({ day2, dataDir, barcode } = imported);
  const db = imported.db;
  old = priceDigest(db.prices);
  const account = createAccount(db.accounts, { email: "backup@example.com", plan: "pro" }, new Date());
  accountId = account.id;
  key = createKey(db.accounts, { accountId: account.id, kind: "live" }, new Date()).key;
  db.prices.close();
  db.accounts.close();
}, 180_000);

test("backup while serving and importing: consistent copies that a server restored from answers the same", withLogs(logsOf(servers), async () => {
  const url = await serve(dataDir);
  for (let i = 0; i < 5; i++) expect((await ask(url)).status).toBe(200);
  await usageWritten(dataDir, accountId, 5); // the usage of those calls is written (1 s batches)

  const importer = Bun.spawn([process.execPath, MAIN, "import", day2, "--data-dir", dataDir, "--json"], { stdout: "pipe", stderr: "pipe" });
  const importerOutput = Promise.all([new Response(importer.stdout).text(), new Response(importer.stderr).text()]);
  let stop = false;
  const traffic = (async () => {
    while (!stop) {
      await ask(url);
      await Bun.sleep(2); // paced: the rate is not what is tested
    }
  })();
  const out = join(root, "backups", "2026-11-23");
  await Bun.sleep(100);
  // Awaited, not spawnSync: the server is asked (and writes usage) while the backup runs.
  const backupProc = Bun.spawn([process.execPath, MAIN, "backup", out, "--data-dir", dataDir], { stdout: "pipe", stderr: "pipe" });
  const [backupOut, backupErr, backupCode] = await Promise.all([new Response(backupProc.stdout).text(), new Response(backupProc.stderr).text(), backupProc.exited]);
  stop = true;
  await traffic;
  expect(backupErr).toBe("");
  expect(backupCode).toBe(0);
  expect(backupOut.trim().split("\n").sort()).toEqual([join(out, ACCOUNTS_FILE), join(out, PRICES_FILE)]);
  expect(await importer.exited, (await importerOutput).join("\n")).toBe(0);
  // Copies hold credentials: readable by the owner only.
  for (const file of [ACCOUNTS_FILE, PRICES_FILE]) expect(statSync(join(out, file)).mode & 0o077).toBe(0);

  // Each copy is consistent: a snapshot of before or after the import, never a mix.
  const copy = new Database(join(out, PRICES_FILE), { readonly: true });
  expect(copy.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
  const copied = priceDigest(copy);
  copy.close();
  const live = openDataDir(dataDir);
  const next = priceDigest(live.prices);
  live.prices.close();
  live.accounts.close();
  expect([old, next]).toContain(copied);

  // Again into the same folder: refused, nothing overwritten.
  const again = Bun.spawnSync([process.execPath, MAIN, "backup", out, "--data-dir", dataDir], { stdout: "pipe", stderr: "pipe" });
  expect(again.exitCode).not.toBe(0);
  expect(again.stderr.toString()).toMatch(/already holds a backup/);

  // Restore into a fresh data dir and serve it: same data as the copy, the key works, the usage carried over.
  const restored = join(root, "restored");
  mkdirSync(restored);
  for (const file of [ACCOUNTS_FILE, PRICES_FILE]) copyFileSync(join(out, file), join(restored, file));
  const url2 = await serve(restored);
  const a = await ask(url2);
  expect(a.status).toBe(200);
  const check = new Database(join(restored, PRICES_FILE), { readonly: true });
  expect(priceDigest(check)).toBe(copied);
  check.close();
  expect(a.meta.quota_remaining).toBeLessThanOrEqual(100_000 - 5 - 1);
}), 300_000);
