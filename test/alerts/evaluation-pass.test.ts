import { expect, test } from "bun:test";
import { bumpDataVersion } from "../../src/data/data-state.ts";
import { evaluationPass, type PassResult } from "../../src/alerts/evaluation-pass.ts";
import { call } from "../helpers/alerts/call.ts";
import { newKey } from "../helpers/keys.ts";
import { BARCODE, setup } from "../helpers/alerts/memory-app.ts";

/**
 * The pass the evaluation worker runs (evaluation-pass.ts), here on in-memory databases: an
 * import the app has not noticed yet is evaluated at the version the pass reads, an import
 * committed during a pass ends it (every alert of a pass sees the same data), and two passes at
 * one data version (a stopping server's and the next start's) queue each event once.
 */
test("two passes at one data version queue the event once; the pass reads the committed version", async () => {
  const s = setup();
  const key = newKey(s.deps, "pro", "live", { email: "alerts@example.com" }).key;
  const created = await call(s.app, "POST", "/api/v1/alerts/", key, { url: "http://127.0.0.1:9/hook", barcode: BARCODE, condition: { below_ils: "11.00" } });
  expect(created.status).toBe(201);
  // An import commits a lower price; the app has not refreshed its data state (no poll yet).
  s.db.prices.run("UPDATE price_current SET price = 1000 WHERE product_id = ?", [s.product]);
  bumpDataVersion(s.db.prices, "2026-11-22T06:00:00+02:00", "demo");
  expect(s.deps.data.current.version).toBe(1);

  const at = s.timers.now();
  const seen: { second?: PassResult } = {};
  let asked = 0;
  // The second pass runs in full while the first has read its batch of alerts but not written it.
  const first = evaluationPass(s.deps, {
    now: at,
    at,
    stopped: () => {
      if (++asked === 2) seen.second = evaluationPass(s.deps, { now: at, at, stopped: () => false });
      return false;
    },
  });
  expect(seen.second).toEqual({ version: 2, evaluated: 1, fired: 1 });
  expect(first).toEqual({ version: 2, evaluated: 0, fired: 0 });
  const deliveries = s.db.accounts.query("SELECT count(*) AS n FROM alert_deliveries").get() as { n: number };
  expect(deliveries.n).toBe(1);
  // Nothing is behind any more: a third pass evaluates nothing.
  expect(evaluationPass(s.deps, { now: at, at, stopped: () => false })).toEqual({ version: 2, evaluated: 0, fired: 0 });
});

test("an import committed during a pass ends it; the next pass evaluates every alert at the new version", async () => {
  const s = setup();
  const key = newKey(s.deps, "pro", "live", { email: "alerts@example.com" }).key;
  expect((await call(s.app, "POST", "/api/v1/alerts/", key, { url: "http://127.0.0.1:9/hook", barcode: BARCODE, condition: { below_ils: "11.00" } })).status).toBe(201);
  s.db.prices.run("UPDATE price_current SET price = 1000 WHERE product_id = ?", [s.product]);
  bumpDataVersion(s.db.prices, "2026-11-22T06:00:00+02:00", "demo");
  const at = s.timers.now();
  let asked = 0;
  // Another import commits after the pass read its version, before it prices its first batch.
  const cut = evaluationPass(s.deps, {
    now: at,
    at,
    stopped: () => {
      if (++asked === 1) bumpDataVersion(s.db.prices, "2026-11-22T07:00:00+02:00", "demo");
      return false;
    },
  });
  expect(cut).toEqual({ version: 2, evaluated: 0, fired: 0 });
  expect(evaluationPass(s.deps, { now: at, at, stopped: () => false })).toEqual({ version: 3, evaluated: 1, fired: 1 });
});
