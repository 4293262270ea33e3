/**
 * The sandbox is the same on every server whenever it is made: built as of two different days
 * (a different season, time of day and UTC offset), it holds the same stores, products, prices,
 * price changes and promotions; only their dates move, by the whole days between the two.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { createApp } from "../../src/app.ts";
import { createServices, type Services } from "../../src/services.ts";
import { loadSettings } from "../../src/config.ts";
import { openMemory } from "../../src/db/open.ts";
import { syncRegistry } from "../../src/db/sync-registry.ts";
import { DataState } from "../../src/data/data-state.ts";
import { loadRegistry } from "../../src/registry.ts";
import { createAccount } from "../../src/accounts/accounts.ts";
import { createKey } from "../../src/accounts/keys.ts";
import { openSandboxDatabase, Sandbox } from "../../src/sandbox/sandbox.ts";
import { toIsraelIso } from "../../src/lib/time.ts";
import { get } from "../helpers/app.ts";

const registry = loadRegistry();
/** Two days 258 days apart: winter (UTC+2) in the small hours, summer (UTC+3) in the evening. */
const DAY_A = new Date("2026-11-24T01:10:00Z");
const DAY_B = new Date("2027-08-09T16:45:00Z");
const SHIFT_DAYS = 258;

/** A server whose live data is not the demo, its sandbox made as of `now`, and a Pro account's test key. */
async function serverMadeOn(now: Date) {
  const db = openMemory();
  syncRegistry(db.prices, registry);
  const sandbox = new Sandbox({ db: openSandboxDatabase(":memory:", registry), registry, demo: { scale: 0.01, importer: "inline", now } });
  const deps = createServices(loadSettings({ MEHIR_SOURCE: "live", MEHIR_RATE_PRO: "100000" }), db, { registry, data: new DataState(db.prices), now: () => now, sandbox });
  const app = createApp(deps);
  const account = createAccount(db.accounts, { email: "dev@example.com", plan: "pro" }, now);
  const key = { "x-api-key": createKey(db.accounts, { accountId: account.id, kind: "test" }, now).key };
  await sandbox.ensure();
  expect(sandbox.ready).toBe(true);
  await sandbox.searchIndex(async () => {}).settled();
  return { app, sandbox, key, now };
}

type Server = Awaited<ReturnType<typeof serverMadeOn>>;
let a: Server;
let b: Server;

beforeAll(async () => {
  a = await serverMadeOn(DAY_A);
  b = await serverMadeOn(DAY_B);
}, 240_000);

/** Rows of a query, as arrays. */
function rows(db: Database, sql: string): unknown[][] {
  return db.query(sql).values() as unknown[][];
}

/** An ISO local time with offset (`2026-11-24T03:10:00+02:00`) as minutes since 1970 on its wall clock. */
function wallMinutes(iso: string): number {
  const n = (from: number, to: number) => Number(iso.slice(from, to));
  return Date.UTC(n(0, 4), n(5, 7) - 1, n(8, 10), n(11, 13), n(14, 16)) / 60_000;
}

/** A Date's Israel wall clock, as minutes since 1970. */
const wallOf = (date: Date) => wallMinutes(toIsraelIso(date));

/** `later` is `earlier` moved forward by `days` whole days on the wall clock. */
function movedBy(earlier: string, later: string, days: number): boolean {
  return wallMinutes(later) - wallMinutes(earlier) === days * 24 * 60;
}

const CURRENT_PRICES = `
  SELECT c.slug, s.store_code, p.barcode_key, p.scope_chain_id, p.name, pc.price
    FROM price_current pc JOIN stores s ON s.id = pc.store_id JOIN chains c ON c.id = s.chain_id JOIN products p ON p.id = pc.product_id
   ORDER BY 1, 2, 3, 4`;

describe("the sandbox made on two different days", () => {
  test("the same stores and products, at the same prices in every store", () => {
    const stores = "SELECT c.slug, s.store_code, s.name, s.address, s.city, s.store_type, s.closed_at IS NULL FROM stores s JOIN chains c ON c.id = s.chain_id ORDER BY 1, 2";
    expect(rows(b.sandbox.db, stores)).toEqual(rows(a.sandbox.db, stores));
    const products = "SELECT barcode_key, scope_chain_id, name, manufacturer, size_amount, size_unit FROM products ORDER BY 1, 2";
    expect(rows(b.sandbox.db, products)).toEqual(rows(a.sandbox.db, products));
    const pricesA = rows(a.sandbox.db, CURRENT_PRICES);
    expect(pricesA.length).toBeGreaterThan(1000);
    expect(rows(b.sandbox.db, CURRENT_PRICES)).toEqual(pricesA);
  });

  test("the same price changes, each dated the same number of days later", () => {
    const history = `
      SELECT c.slug, s.store_code, p.barcode_key, p.scope_chain_id, h.price, h.valid_from
        FROM price_history h JOIN stores s ON s.id = h.store_id JOIN chains c ON c.id = s.chain_id JOIN products p ON p.id = h.product_id
       ORDER BY 1, 2, 3, 4, h.valid_from`;
    const before = rows(a.sandbox.db, history);
    const after = rows(b.sandbox.db, history);
    expect(after.length).toBe(before.length);
    expect(after.map((r) => r.slice(0, 5))).toEqual(before.map((r) => r.slice(0, 5)));
    // Some price moved during the 24 months, or this would prove nothing about history.
    expect(new Set(before.map((r) => r.slice(0, 4).join())).size).toBeLessThan(before.length);
    // Moved by whole days, except the last month's changes: dated back from today's snapshot, which is
    // dated back from the time of day it was made, they move by that time of day's difference too.
    const days = SHIFT_DAYS * 24 * 60;
    const timeOfDay = wallOf(DAY_B) - wallOf(DAY_A) - days;
    const moves = new Map<number, number>();
    before.forEach((r, i) => {
      const move = wallMinutes(after[i]![5] as string) - wallMinutes(r[5] as string);
      moves.set(move, (moves.get(move) ?? 0) + 1);
    });
    expect([...moves.keys()].sort((x, y) => x - y)).toEqual([days, days + timeOfDay]);
    expect(moves.get(days)!).toBeGreaterThan(moves.get(days + timeOfDay)!);
  });

  test("the same promotions with the same terms and items, their dates moved by the same days", () => {
    const promotions = `
      SELECT c.slug, pr.promotion_code, pr.description, pr.min_qty, pr.discounted_price, pr.discount_rate, pr.is_club_only,
             (SELECT group_concat(p.barcode_key, ' ') FROM (SELECT p.barcode_key FROM promotion_items i JOIN products p ON p.id = i.product_id WHERE i.promotion_id = pr.id ORDER BY 1) p),
             pr.starts_at, pr.ends_at
        FROM promotions pr JOIN chains c ON c.id = pr.chain_id
       ORDER BY 1, 2`;
    const before = rows(a.sandbox.db, promotions);
    const after = rows(b.sandbox.db, promotions);
    expect(before.length).toBeGreaterThan(50);
    expect(after.map((r) => r.slice(0, 8))).toEqual(before.map((r) => r.slice(0, 8)));
    for (let i = 0; i < before.length; i++) {
      const [starts, ends] = [before[i]![8] as string, before[i]![9] as string];
      if (starts) expect(movedBy(starts, after[i]![8] as string, SHIFT_DAYS)).toBe(true);
      // Open-ended promotions end on a fixed far date (2031), on both.
      if (ends && !ends.startsWith("2031")) expect(movedBy(ends, after[i]![9] as string, SHIFT_DAYS)).toBe(true);
    }
  });

  test("the API answers a test key the same prices per store, and the same basket, each on its own day", async () => {
    const popular = rows(a.sandbox.db, "SELECT barcode FROM chain_products GROUP BY barcode ORDER BY sum(store_count) DESC, barcode LIMIT 5").map((r) => r[0] as string);
    const perStore = (body: any) => body.data.prices.map((p: any) => [p.chain_id, p.store.store_id, p.price_ils, p.effective_price_ils, p.is_on_promotion]);
    for (const barcode of popular) {
      const [x, y] = await Promise.all([a, b].map((s) => get(s.app, `/api/v1/prices/?barcode=${barcode}&granularity=store`, s.key)));
      expect(x!.status).toBe(200);
      expect(x!.body.meta.livemode).toBe(false);
      expect(perStore(y!.body)).toEqual(perStore(x!.body));
    }
    const basket = { items: popular.map((barcode, i) => ({ barcode, quantity: i + 1 })) };
    const totals = (body: any) => body.data.stores.map((c: any) => [c.chain_id, c.total_ils, c.shelf_total_ils, c.items_found]);
    const [x, y] = await Promise.all(
      [a, b].map((s) => s.app.handle(new Request("http://localhost/api/v1/basket/compare/", { method: "POST", headers: { ...s.key, "content-type": "application/json" }, body: JSON.stringify(basket) }))),
    );
    const [bx, by] = [await x!.json(), await y!.json()];
    expect(bx.data.stores.length).toBeGreaterThan(1);
    expect(totals(by)).toEqual(totals(bx));
  });

  test("each looks current on its own day: today's files shortly before it was made, promotions running", async () => {
    for (const s of [a, b]) {
      const newest = new Date(rows(s.sandbox.db, "SELECT max(prices_at) FROM stores")[0]![0] as string).getTime();
      expect(s.now.getTime() - newest).toBeGreaterThan(0);
      expect(s.now.getTime() - newest).toBeLessThan(3 * 3_600_000);
      const feed = await get(s.app, "/api/v1/promos/feed/?limit=5", s.key);
      expect(feed.status).toBe(200);
      expect(feed.body.data.length).toBe(5);
    }
  });
});
