import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { migrate } from "../../src/db/migrate.ts";
import { PRICE_MIGRATIONS } from "../../src/db/price-schema.ts";
import { ACCOUNT_MIGRATIONS } from "../../src/db/account-schema.ts";
import { ACCOUNTS_FILE, PRICES_FILE } from "../../src/db/open.ts";
import { loadRegistry } from "../../src/registry.ts";
import { importPaths } from "../../src/ingest/run/import.ts";
import { createAccount, setPlan } from "../../src/accounts/accounts.ts";
import { createKey } from "../../src/accounts/keys.ts";
import { AlertStore } from "../../src/alerts/alert-store.ts";
import { DeliveryStore } from "../../src/alerts/delivery-store.ts";
import { SecretBox } from "../../src/alerts/secret-box.ts";
import { appOn, ask, MAIN, sandboxMade, someBarcode, tempRoot, twoDays } from "../helpers/faults/faults.ts";

// Imports and a server process: sized for a loaded 2-core machine.
setDefaultTimeout(180_000);

/**
 * Schema versions of each released mehir. A data dir made by any of them must open with this code
 * and keep everything; add a line at each release (and keep the older ones).
 */
const RELEASES = [{ release: "0.1.0", prices: 8, accounts: 4 }];

const root = tempRoot("upgrade");
afterAll(() => rmSync(root, { recursive: true, force: true }));
const { day1, day2 } = twoDays(root, { stores: 4, itemsPerStore: 200, products: 600, chains: 2, promos: true });

/** A database file at exactly a release's schema (only the migrations it had). */
function databaseAt(path: string, migrations: typeof PRICE_MIGRATIONS, version: number): Database {
  const db = new Database(path, { create: true, strict: true });
  db.run("PRAGMA journal_mode = WAL");
  db.run("PRAGMA foreign_keys = ON");
  migrate(db, path, migrations.filter((m) => m.version <= version));
  expect((db.query("PRAGMA user_version").get() as { user_version: number }).user_version).toBe(version);
  return db;
}

for (const release of RELEASES) {
  test(`a data dir made by ${release.release} opens with this code and keeps every account, key, plan, usage count, alert, delivery, price, history record and promotion`, async () => {
    const dir = join(root, release.release);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const prices = databaseAt(join(dir, PRICES_FILE), PRICE_MIGRATIONS, release.prices);
    const accounts = databaseAt(join(dir, ACCOUNTS_FILE), ACCOUNT_MIGRATIONS, release.accounts);
    // Price data as that release's import wrote it: two days, so prices changed (history) and promotions ran.
    const now = new Date();
    for (const day of [day1, day2]) {
      const report = await importPaths({ db: prices, registry: loadRegistry(), paths: [day], origin: "cli", source: "live", now: () => now, parseWorkers: 0 });
      expect(report.dataVersion).not.toBeNull();
    }
    const account = createAccount(accounts, { email: "upgrade@example.com" }, now);
    setPlan(accounts, "upgrade@example.com", "pro");
    const { key } = createKey(accounts, { accountId: account.id, kind: "live", name: "production" }, now);
    const publishable = createKey(accounts, { accountId: account.id, kind: "publishable", origins: ["https://shop.example"] }, now);
    // Usage as the server's ledger writes it (per subject and UTC day).
    const today = now.toISOString().slice(0, 10);
    accounts.run("INSERT INTO usage_daily (subject, day, count) VALUES (?, ?, 37), (?, ?, 12)", [`account:${account.id}`, today, `widget:${publishable.record.id}`, today]);
    const barcode = someBarcode(prices);
    const box = SecretBox.beside(join(dir, ACCOUNTS_FILE));
    const alert = new AlertStore(accounts).insert(
      {
        publicId: "alrt_upgrade000000000000000001",
        accountId: account.id,
        url: "https://hooks.example/mehir",
        barcode,
        chainId: null,
        chainIds: [],
        city: null,
        condition: { below_ils: "9.90" },
        secretSealed: box.seal("whsec_upgrade_secret", "alrt_upgrade000000000000000001"),
        secretLast4: "cret",
        state: { best: null, chains: {}, met: false },
        stateVersion: 0,
        createdAt: now.getTime(),
      },
      10,
    )!;
    const delivery = new DeliveryStore(accounts).insert({ eventId: "evt_upgrade000000000000000001", alertId: alert.id, isTest: true, payload: '{"type":"alert.test"}', at: now.getTime() });
    const count = (db: Database, table: string) => (db.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    const made = {
      prices: count(prices, "price_current"),
      history: count(prices, "price_history"),
      promotions: count(prices, "promotions"),
      items: count(prices, "promotion_items"),
      stores: count(prices, "stores"),
    };
    expect(made.history).toBeGreaterThan(made.prices); // day 2 changed prices
    expect(made.promotions).toBeGreaterThan(0);
    prices.close();
    accounts.close();

    // This code opens it (migrating what came after the release) and finds everything.
    sandboxMade(dir);
    const served = appOn(dir);
    try {
      const db = served.deps.db;
      expect({
        prices: count(db.prices, "price_current"),
        history: count(db.prices, "price_history"),
        promotions: count(db.prices, "promotions"),
        items: count(db.prices, "promotion_items"),
        stores: count(db.prices, "stores"),
      }).toEqual(made);
      expect((db.prices.query("PRAGMA user_version").get() as { user_version: number }).user_version).toBe(PRICE_MIGRATIONS.at(-1)!.version);
      expect((db.accounts.query("PRAGMA user_version").get() as { user_version: number }).user_version).toBe(ACCOUNT_MIGRATIONS.at(-1)!.version);
      expect(db.accounts.query("SELECT email, plan FROM accounts").all()).toEqual([{ email: "upgrade@example.com", plan: "pro" }]);
      expect(db.accounts.query("SELECT subject, count FROM usage_daily ORDER BY subject").all()).toEqual([
        { subject: `account:${account.id}`, count: 37 },
        { subject: `widget:${publishable.record.id}`, count: 12 },
      ]);
      expect(db.accounts.query("SELECT allowed_origins FROM api_keys WHERE id = ?").get(publishable.record.id)).toEqual({ allowed_origins: '["https://shop.example"]' });
      // The key still authenticates, on its plan, with its usage counted.
      const answer = await ask(served.app, `/api/v1/prices/${barcode}/history/?months=24`, key);
      expect(answer.status).toBe(200);
      expect(answer.body.data.history.length).toBeGreaterThan(0);
      expect(answer.body.meta.quota_remaining).toBe(100_000 - 37 - 1);
      // The alert, its secret (still opens under the key file) and its delivery log.
      const listed = await ask(served.app, "/api/v1/alerts/", key);
      expect(listed.status).toBe(200);
      expect(JSON.stringify(listed.body.data)).toContain("alrt_upgrade000000000000000001");
      const sealed = db.accounts.query("SELECT secret_sealed FROM alerts WHERE id = ?").get(alert.id) as { secret_sealed: Uint8Array };
      expect(SecretBox.beside(join(dir, ACCOUNTS_FILE)).open(sealed.secret_sealed, "alrt_upgrade000000000000000001")).toBe("whsec_upgrade_secret");
      expect(db.accounts.query("SELECT event_id, payload FROM alert_deliveries WHERE id = ?").get(delivery.id)).toEqual({ event_id: "evt_upgrade000000000000000001", payload: '{"type":"alert.test"}' });
    } finally {
      served.close();
    }
  });
}

test("`mehir serve` refuses a data dir made by a newer mehir, saying so, and leaves it as it was", async () => {
  const dir = join(root, "newer");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const newer = PRICE_MIGRATIONS.at(-1)!.version + 1;
  const db = databaseAt(join(dir, PRICES_FILE), PRICE_MIGRATIONS, PRICE_MIGRATIONS.at(-1)!.version);
  db.run(`PRAGMA user_version = ${newer}`);
  db.close();
  const proc = Bun.spawn([process.execPath, MAIN, "serve", "--port", "0", "--host", "127.0.0.1", "--data-dir", dir], {
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, MEHIR_METRICS_ADDR: "127.0.0.1:0" },
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect(code, out + err).toBe(2);
  expect(err).toContain(`schema version ${newer}, but this mehir only knows up to ${newer - 1}`);
  expect(err).toMatch(/upgrade mehir, or restore a backup made by this version/);
  const after = new Database(join(dir, PRICES_FILE), { readonly: true });
  expect((after.query("PRAGMA user_version").get() as { user_version: number }).user_version).toBe(newer);
  after.close();
});
