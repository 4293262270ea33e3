import type { Sender, SendResult } from "../../../src/alerts/sender.ts";
import { commitData, testApp } from "../app.ts";
import { Fixture } from "../fixture.ts";
import { ManualTimers } from "./manual-timers.ts";

export const BARCODE = "7290000066318";

export interface Sent {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** The harness's in-memory app whose alert service sends through `answer` (no network) on manual timers. */
export function setup(options: { allowLoopback?: boolean } = {}) {
  const timers = new ManualTimers();
  const sent: Sent[] = [];
  const state = { answer: (): SendResult => ({ status: 200 }) };
  const send: Sender = async (url, headers, body) => {
    sent.push({ url, headers, body });
    return state.answer();
  };
  const { app, deps, db, chainIds } = testApp({ env: { MEHIR_WEBHOOK_ALLOW_LOOPBACK: options.allowLoopback === false ? "off" : "on" }, timers, alerts: { send } });
  const fx = new Fixture(db.prices, chainIds);
  const product = fx.product(BARCODE, "חלב תנובה 3%");
  const stores = { shufersal: fx.store("shufersal", "1", { city: "חיפה", region: "haifa" }), rami: fx.store("rami-levy", "2"), rami2: fx.store("rami-levy", "3") };
  fx.price(stores.shufersal, product, 1290);
  fx.price(stores.rami, product, 1190);
  fx.price(stores.rami2, product, 1190);
  commitData(deps);
  return { app, deps, timers, sent, state, fx, product, stores, db };
}

/** Sets a store's shelf price and commits a new data version (as an import would). */
export function reprice(s: ReturnType<typeof setup>, store: number, agorot: number) {
  s.db.prices.run("UPDATE price_current SET price = ? WHERE store_id = ? AND product_id = ?", [agorot, store, s.product]);
  commitData(s.deps);
}

