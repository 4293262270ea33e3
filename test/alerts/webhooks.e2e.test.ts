import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { importPaths } from "../../src/ingest/run/import.ts";
import { openDataDir } from "../../src/db/open.ts";
import { loadRegistry } from "../../src/registry.ts";
import { verifySignature } from "../../src/alerts/signature.ts";
import { SECRET_KEY_FILE } from "../../src/alerts/secret-box.ts";
import { ManualTimers } from "../helpers/alerts/manual-timers.ts";
import { Receiver } from "../helpers/alerts/receiver.ts";
import { writePriceFull } from "../helpers/alerts/price-files.ts";
import { call } from "../helpers/alerts/call.ts";
import { testApp } from "../helpers/app.ts";
import { newKey } from "../helpers/keys.ts";

/**
 * The "done when", on a real data dir and a real receiver on 127.0.0.1: subscribe →
 * import a day with a lower price → a signed delivery (the test verifies the signature) → a
 * failing receiver retried (on the scheduler's clock, moved by hand) and then succeeding → a
 * restart in the middle of the retries loses nothing and sends nothing twice.
 */
const BARCODE = "7290000066318";
const OTHER = "7290000066004";
const root = mkdtempSync(join(tmpdir(), "mehir-alerts-e2e-"));
const dataDir = join(root, "data");
const timers = new ManualTimers();
/** The app as `mehir serve` builds it on the data dir (its own connections; loopback webhooks allowed), on manual timers. */
const serve = () => testApp({ db: openDataDir(dataDir), env: { MEHIR_WEBHOOK_ALLOW_LOOPBACK: "on", MEHIR_RATE_PRO: "100000", MEHIR_DATA_DIR: dataDir }, timers });
const receiver = new Receiver([200]);
let key = "";

async function importDay(day: number, prices: Record<string, number>) {
  const dir = join(root, `day${day}`);
  writePriceFull(dir, day, "001", prices);
  writePriceFull(dir, day, "002", prices);
  const db = openDataDir(dataDir);
  try {
    const report = await importPaths({ db: db.prices, registry: loadRegistry(), paths: [dir], origin: "cli", source: "live" });
    expect(report.status).not.toBe("failed");
  } finally {
    db.prices.close();
    db.accounts.close();
  }
}

beforeAll(async () => {
  await importDay(20, { [BARCODE]: 1290, [OTHER]: 500 });
});
afterAll(() => {
  receiver.stop();
  rmSync(root, { recursive: true, force: true });
});

test("subscribe → lower price imported → signed delivery → failures retried → restart loses nothing", async () => {
  let server = serve();
  key = newKey(server.deps, "pro", "live", { email: "alerts@example.com" }).key;

  // Subscribe: the secret is shown once; the state at this data version is the baseline.
  const created = await call(server.app, "POST", "/api/v1/alerts/", key, { url: receiver.url, barcode: BARCODE, condition: { below_ils: "10.00" } });
  expect(created.status).toBe(201);
  const secret: string = created.body.data.secret;
  expect(secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
  expect(created.body.data.last_evaluation).toEqual({ data_version: 1, effective_price_ils: "12.90", condition_met: false });
  // Sealed at rest: neither the secret nor its base64 is in the database file; the key file is 0600.
  server.close();
  const bytes = Buffer.from(await Bun.file(join(dataDir, "accounts.sqlite")).arrayBuffer()).toString("latin1");
  expect(bytes.includes(secret)).toBe(false);
  expect(statSync(join(dataDir, SECRET_KEY_FILE)).mode & 0o777).toBe(0o600);

  // A day with a lower price is imported while the server runs (on another connection, as
  // `mehir import` does); the server learns of it at its next refresh (the poll) and evaluates
  // off the request path.
  server = serve();
  await importDay(21, { [BARCODE]: 990, [OTHER]: 500 });
  const first = receiver.next();
  expect(server.deps.data.refresh()).toBe(true);
  const got = await first;
  await server.deps.alerts.worker.idle();

  const event = JSON.parse(got.body);
  expect(got.headers.get("mehir-event-id")).toBe(event.id);
  expect(verifySignature(got.headers.get("mehir-signature")!, secret, got.body, Math.floor(timers.now() / 1000))).toBe(true);
  expect(verifySignature(got.headers.get("mehir-signature")!, "whsec_wrong", got.body, Math.floor(timers.now() / 1000))).toBe(false);
  expect(event.type).toBe("price.alert");
  expect(event.data).toMatchObject({
    alert_id: created.body.data.id,
    test: false,
    condition: { below_ils: "10.00" },
    product: { barcode: BARCODE, chain_id: null },
    old_effective_price_ils: "12.90",
    new_effective_price_ils: "9.90",
    store_count: 2,
    data_version: 2,
  });
  expect(event.data.chains).toEqual([
    expect.objectContaining({ chain_id: "rami-levy", store_count: 2, old_effective_price_ils: "12.90", effective_price_ils: "9.90" }),
  ]);
  const log1 = await call(server.app, "GET", `/api/v1/alerts/${created.body.data.id}/deliveries/`, key);
  expect(log1.body.data).toHaveLength(1);
  expect(log1.body.data[0]).toMatchObject({ event_id: event.id, status: "succeeded", attempts: 1, last_response_code: 200, next_retry_at: null });

  // Not again while it stays true: the next day at the same price fires nothing.
  server.close();
  await importDay(22, { [BARCODE]: 990, [OTHER]: 500 });
  server = serve();
  await server.deps.alerts.evaluator.run();
  await server.deps.alerts.worker.idle();
  expect(receiver.received).toHaveLength(1);

  // It goes back up, then down again: a new event, which the receiver fails twice (500, then a
  // redirect, which is not followed) before accepting it.
  server.close();
  await importDay(23, { [BARCODE]: 1290, [OTHER]: 500 });
  server = serve();
  await server.deps.alerts.evaluator.run();
  server.close();
  await importDay(24, { [BARCODE]: 950, [OTHER]: 500 });
  receiver.statuses = [500, 302, 200];
  server = serve();
  const attempt1 = receiver.next(1);
  await server.deps.alerts.evaluator.run();
  const a1 = await attempt1;
  await server.deps.alerts.worker.idle();
  const eventId = a1.headers.get("mehir-event-id")!;
  let log = (await call(server.app, "GET", `/api/v1/alerts/${created.body.data.id}/deliveries/`, key)).body.data;
  expect(log[0]).toMatchObject({ event_id: eventId, status: "pending", attempts: 1, last_response_code: 500 });
  // The first retry is due about 10 s later (jitter 0 here): nothing is sent before it.
  const retryAt = Date.parse(log[0].next_retry_at);
  expect(retryAt - timers.now()).toBe(10_000);
  timers.advance(9_000);
  await server.deps.alerts.worker.idle();
  expect(receiver.received).toHaveLength(2);

  // Restart in the middle: stop (timers and databases), start again on the same data dir.
  server.close();
  server = serve();
  const attempt2 = receiver.next(2);
  timers.advance(1_000);
  const a2 = await attempt2;
  await server.deps.alerts.worker.idle();
  expect(a2.headers.get("mehir-event-id")).toBe(eventId);
  expect(a2.body).toBe(a1.body); // the same bytes every attempt
  log = (await call(server.app, "GET", `/api/v1/alerts/${created.body.data.id}/deliveries/`, key)).body.data;
  expect(log[0]).toMatchObject({ status: "pending", attempts: 2, last_response_code: 302, last_error: "redirects are not followed" });
  expect(Date.parse(log[0].next_retry_at) - timers.now()).toBe(30_000);

  // Another restart; the third attempt succeeds, with a fresh, valid signature on the same body.
  server.close();
  server = serve();
  const attempt3 = receiver.next(3);
  timers.advance(30_000);
  const a3 = await attempt3;
  await server.deps.alerts.worker.idle();
  expect(verifySignature(a3.headers.get("mehir-signature")!, secret, a3.body, Math.floor(timers.now() / 1000))).toBe(true);
  log = (await call(server.app, "GET", `/api/v1/alerts/${created.body.data.id}/deliveries/`, key)).body.data;
  expect(log[0]).toMatchObject({ event_id: eventId, status: "succeeded", attempts: 3, last_response_code: 200, next_retry_at: null });

  // Never sent twice on success: a day later, across another restart, nothing more was sent.
  server.close();
  server = serve();
  timers.advance(24 * 3600_000);
  await server.deps.alerts.worker.idle();
  expect(receiver.received).toHaveLength(4);
  expect(timers.nextDue()).toBeNull();
  server.close();
}, 180_000);
