import type { Database } from "bun:sqlite";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../../../src/app.ts";
import { createServices, type Services } from "../../../src/services.ts";
import { loadSettings } from "../../../src/config.ts";
import { openDataDir } from "../../../src/db/open.ts";
import { importPaths } from "../../../src/ingest/run/import.ts";
import { syncRegistry } from "../../../src/db/sync-registry.ts";
import { bumpDataVersion, DataState } from "../../../src/data/data-state.ts";
import { openSandboxDatabase, SANDBOX_FILE } from "../../../src/sandbox/sandbox.ts";
import { loadRegistry } from "../../../src/registry.ts";
import { writeDay, type FilesPlan } from "../../../bench/lib/price-files.ts";

export const MAIN = join(import.meta.dir, "../../../src/main.ts");

/**
 * README ("Quota counts"): counts are written to accounts.sqlite 1 s after the first call of a
 * batch, so a SIGKILL loses at most the calls of the last second. A call answered earlier than
 * USAGE_FLUSH_MS + FLUSH_SLACK_MS + the machine's timer lateness (watchTimerLateness) before the
 * kill must be on disk: the flush timer fires late by as much as the machine delays timers (a few
 * ms when quiet, seconds under a load of 30), which is the machine's, not a longer promise.
 */
export const USAGE_FLUSH_MS = 1000;
export const FLUSH_SLACK_MS = 150;

/**
 * Watches how late this process's timers fire (a 20 ms interval; the largest delay past its
 * nominal time, ms) while a test runs beside a server: a server's flush timer on the same machine
 * is delayed alike, so the usage bound adds it to its slack instead of assuming a quiet machine.
 * @example const lateness = watchTimerLateness(); … const bound = USAGE_FLUSH_MS + FLUSH_SLACK_MS + lateness.stop();
 */
export function watchTimerLateness(): { worst(): number; stop(): number } {
  const PERIOD_MS = 20;
  let worst = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - PERIOD_MS);
    last = now;
  }, PERIOD_MS);
  const now = () => Math.max(worst, performance.now() - last - PERIOD_MS);
  return {
    /** The worst lateness so far (including the current wait), ms. */
    worst: now,
    /** Stops watching; the worst lateness seen, ms. */
    stop() {
      clearInterval(timer);
      return now();
    },
  };
}

/** Two days of national-shaped files (day 2 changes some prices, adds stores). */
export function twoDays(root: string, plan: FilesPlan = { stores: 6, itemsPerStore: 300, products: 2000, chains: 2, promos: true }) {
  const day1 = join(root, "day1");
  const day2 = join(root, "day2");
  writeDay(day1, plan, 1);
  writeDay(day2, { ...plan, stores: plan.stores * 2 }, 2);
  return { day1, day2 };
}

/**
 * Two days of files under `root` (twoDays), day 1 imported as `mehir import` does into the data
 * dir `root/dir`, and the barcode sold most widely. The databases stay open for the caller's
 * accounts and keys; it closes them. The sandbox is marked made (sandboxMade): the servers of
 * these tests answer live keys only.
 */
export async function dayOneImported(root: string, plan: FilesPlan, dir = "data") {
  const { day1, day2 } = twoDays(root, plan);
  const dataDir = join(root, dir);
  const db = openDataDir(dataDir);
  await importPaths({ db: db.prices, registry: loadRegistry(), paths: [day1], origin: "cli", source: "live" });
  sandboxMade(dataDir);
  return { day2, dataDir, db, barcode: someBarcode(db.prices) };
}

/**
 * Marks a data dir's sandbox (sandbox.sqlite, the data of test keys) as made, with no data in it.
 * A server on live data otherwise makes it at start from the whole demo — tens of seconds of CPU
 * beside the test, which a test that never calls with a test key does not need.
 */
export function sandboxMade(dataDir: string): void {
  const db = openSandboxDatabase(join(dataDir, SANDBOX_FILE), loadRegistry());
  bumpDataVersion(db, "2026-11-22T05:30:00+02:00", "demo");
  db.close();
}

export function tempRoot(name: string): string {
  return mkdtempSync(join(tmpdir(), `mehir-${name}-`));
}

/** The app as `mehir serve` builds it, on a data dir (its own connections). */
export function appOn(dataDir: string) {
  mkdirSync(dataDir, { recursive: true });
  const db = openDataDir(dataDir);
  const registry = loadRegistry();
  syncRegistry(db.prices, registry);
  const deps = createServices(loadSettings({ MEHIR_RATE_PRO: "100000", MEHIR_RATE_ANONYMOUS: "100000" }), db, { registry, data: new DataState(db.prices), now: () => new Date() });
  const app = createApp(deps);
  return {
    app,
    deps,
    close() {
      deps.access?.flush();
      deps.search.stop();
      db.prices.close();
      db.accounts.close();
    },
  };
}

/** A digest of the served price data and its version (equal digests = same snapshot). */
export function priceDigest(db: Database): string {
  const q = (sql: string) => JSON.stringify(db.query(sql).values());
  return [
    q("SELECT count(*), sum(price), sum(store_id * 7 + product_id * 13 + price) FROM price_current"),
    q("SELECT count(*), sum(coalesce(price, -1)) FROM price_history"),
    q("SELECT count(*), sum(length(name)) FROM products"),
    q("SELECT count(*) FROM promotions"),
    q("SELECT count(*), sum(store_count + price_mode) FROM chain_products"),
    q("SELECT value FROM meta WHERE key = 'data_version'"),
  ].join("|");
}

/** A barcode sold by several stores, to ask /prices/ about. */
export function someBarcode(db: Database): string {
  return (db.query("SELECT p.barcode FROM products p JOIN price_current pc ON pc.product_id = p.id GROUP BY p.id ORDER BY count(*) DESC, p.id LIMIT 1").get() as { barcode: string }).barcode;
}

/** GET a path of the app with a key; the parsed body and status. */
export async function ask(app: { handle(r: Request): Promise<Response> }, path: string, key: string) {
  const res = await app.handle(new Request(`http://localhost${path}`, { headers: { "x-api-key": key } }));
  return { status: res.status, body: (await res.json()) as any };
}

/**
 * Resolves once /readyz answers 200 (the search index builds in the background after an import;
 * the index announces nothing a test can listen to). The test's timeout bounds the wait.
 */
export async function untilReady(app: { handle(r: Request): Promise<Response> }): Promise<void> {
  while ((await app.handle(new Request("http://localhost/readyz"))).status !== 200) await Bun.sleep(50);
}

export { eachLine } from "../lines.ts";
