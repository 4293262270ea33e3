import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DeliveryThread } from "../../src/alerts/delivery-thread-client.ts";
import { DeliveryStore } from "../../src/alerts/delivery-store.ts";
import { verifySignature } from "../../src/alerts/signature.ts";
import { openDataDir, openMemory } from "../../src/db/open.ts";
import { call } from "../helpers/alerts/call.ts";
import { testApp } from "../helpers/app.ts";
import { newKey } from "../helpers/keys.ts";
import { importStoreDay } from "../helpers/alerts/price-files.ts";
import { Receiver } from "../helpers/alerts/receiver.ts";

/**
 * A server on its data dir with the alert service as `mehir serve` builds it (real clock, real
 * sender): its deliveries are sent from their own thread (delivery-thread.ts), not the serving
 * one — a test event's answer, an event after an import, both signed and logged as succeeded.
 */
const BARCODE = "7290000066318";
const root = mkdtempSync(join(tmpdir(), "mehir-delivery-thread-"));
const dataDir = join(root, "data");
const receiver = new Receiver([200]);

afterAll(() => {
  receiver.stop();
  rmSync(root, { recursive: true, force: true });
});

const importDay = (day: number, agorot: number) => importStoreDay(root, dataDir, day, { [BARCODE]: agorot });

test("a server's deliveries go out from their own thread: test event and price event, signed, logged", async () => {
  await importDay(20, 1290);
  // No alert options: the service as `mehir serve` makes it (real clock, sender and secret box).
  const { app, deps, close } = testApp({ db: openDataDir(dataDir), env: { MEHIR_WEBHOOK_ALLOW_LOOPBACK: "on", MEHIR_RATE_PRO: "100000", MEHIR_DATA_DIR: dataDir }, now: () => new Date() });
  const alerts = deps.alerts;
  try {
    expect(alerts.worker).toBeInstanceOf(DeliveryThread);
    const key = newKey(deps, "pro", "live", { email: "alerts@example.com" }).key;
    const created = await call(app, "POST", "/api/v1/alerts/", key, { url: receiver.url, barcode: BARCODE, condition: { below_ils: "10.00" } });
    expect(created.status).toBe(201);
    const { id, secret } = created.body.data as { id: string; secret: string };

    // The test event: the answer is the attempt's outcome, recorded by the delivery thread.
    const tested = await call(app, "POST", `/api/v1/alerts/${id}/test/`, key);
    expect(tested.status).toBe(200);
    expect(tested.body.data).toMatchObject({ status: "succeeded", attempts: 1, last_response_code: 200 });
    const testEvent = receiver.received[0]!;
    expect(JSON.parse(testEvent.body).data.test).toBe(true);
    expect(verifySignature(testEvent.headers.get("mehir-signature")!, secret, testEvent.body, Math.floor(Date.now() / 1000))).toBe(true);

    // A lower price imported: evaluated (in the evaluation worker), queued, sent by the thread.
    await importDay(21, 990);
    const next = receiver.next(1);
    expect(deps.data.refresh()).toBe(true);
    await alerts.evaluator.run();
    const got = await next;
    await alerts.worker.idle();
    const event = JSON.parse(got.body);
    expect(event.data).toMatchObject({ alert_id: id, test: false, new_effective_price_ils: "9.90", data_version: 2 });
    expect(got.headers.get("mehir-event-id")).toBe(event.id);
    expect(verifySignature(got.headers.get("mehir-signature")!, secret, got.body, Math.floor(Date.now() / 1000))).toBe(true);
    const log = (await call(app, "GET", `/api/v1/alerts/${id}/deliveries/`, key)).body.data;
    expect(log.find((d: { event_id: string }) => d.event_id === event.id)).toMatchObject({ status: "succeeded", attempts: 1, last_response_code: 200, next_retry_at: null });
    expect(receiver.received).toHaveLength(2);
  } finally {
    close();
  }
}, 20_000);

test("a delivery thread that cannot start is logged; nobody waits on it, and the next request tries a new one", async () => {
  const db = openMemory();
  const warned: string[] = [];
  const thread = new DeliveryThread({
    accountsPath: join(root, "no-such-dir", "accounts.sqlite"),
    allowLoopback: true,
    deliveries: new DeliveryStore(db.accounts),
    log: { warn: (msg) => void warned.push(msg) },
  });
  try {
    await thread.deliverNow(1);
    expect(warned).toEqual(["alerts: delivery thread failed"]);
    await thread.idle();
    await thread.deliverNow(1);
    expect(warned).toEqual(["alerts: delivery thread failed", "alerts: delivery thread failed"]);
  } finally {
    thread.stop();
    db.prices.close();
    db.accounts.close();
  }
}, 20_000);
