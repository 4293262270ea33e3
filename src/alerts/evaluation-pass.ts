import type { Database } from "bun:sqlite";
import type { AppData, PricingData } from "../deps.ts";
import { dataTables } from "../pricing/data-tables.ts";
import { DataState, type DataSnapshot } from "../data-state.ts";
import { AlertStore, type Alert } from "./alert-store.ts";
import { DeliveryStore } from "./delivery-store.ts";
import { evaluate, type AlertState } from "./evaluate.ts";
import { eventBody, newEventId } from "./event.ts";
import { filterChains, priceView, targetKey, type PriceView } from "./price-view.ts";

/** Alerts read, evaluated and written per transaction. */
const BATCH = 200;

export interface PassOptions {
  /** The evaluation's time (promotions active then), ms. */
  now: number;
  /** When the queued deliveries are due: the delivery scheduler's clock, ms. */
  at: number;
  /** Asked between alerts: true ends the pass after writing what it evaluated. */
  stopped: () => boolean;
}

export interface PassResult {
  /** The data version evaluated. */
  version: number;
  evaluated: number;
  /** Events queued for delivery. */
  fired: number;
}

interface Outcome {
  alert: Alert;
  state: AlertState;
  event: { id: string; body: string } | null;
}

/**
 * Evaluates every active alert whose state is behind the data version, and queues the events of
 * those whose condition became true. `deps` are the app's deps on the connections it reads: the
 * evaluation worker's own (evaluation-worker.ts), or the app's for in-memory databases.
 *
 * Every alert of a pass is evaluated on the same data: each batch of alerts is priced in a read
 * transaction that first checks the data version is still the pass's (an import commits its data
 * and the new version together); when an import committed meanwhile, the pass ends there and the
 * next one evaluates at the new version. Short read transactions, not one for the whole pass: a
 * pass at idle CPU priority on a busy server may take long, and an open reader would hold back
 * the WAL checkpoints of the next import. Alerts on the same product and scope are priced once.
 * Each batch's states and their events are written in one transaction, an event only with the
 * state it follows from — recorded only when the stored state is older — so a pass cut off by a
 * stop resumes at the next start where it ended, and two passes at the same version (a stopping
 * server's and the next start's) never queue an event twice.
 */
export function evaluationPass(deps: AppData, options: PassOptions): PassResult {
  // The data version the pass evaluates (not the app's view of it, which may lag).
  const data = new DataState(deps.db.prices, deps.data.name);
  const snapshot = data.current;
  const result: PassResult = { version: snapshot.version, evaluated: 0, fired: 0 };
  if (snapshot.version === 0) return result;
  const pass = { ...deps, data, tables: dataTables(data) };
  const alerts = new AlertStore(deps.db.accounts);
  const deliveries = new DeliveryStore(deps.db.accounts);
  const views = new Map<string, PriceView>();
  const now = new Date(options.now);
  let after = 0;
  while (!options.stopped()) {
    const outcomes = readTransaction(deps.db.prices, (): Outcome[] | null => {
      if (data.refresh()) return null;
      const out: Outcome[] = [];
      for (const alert of alerts.behind(snapshot.version, after, BATCH)) {
        if (options.stopped()) break;
        after = alert.id;
        out.push(evaluateOne(pass, alert, snapshot, views, now));
      }
      return out;
    });
    if (outcomes === null || outcomes.length === 0) break;
    deps.db.accounts.transaction(() => {
      for (const o of outcomes) {
        if (!alerts.saveState(o.alert.id, o.state, snapshot.version)) continue;
        result.evaluated++;
        if (!o.event) continue;
        deliveries.insert({ eventId: o.event.id, alertId: o.alert.id, isTest: false, payload: o.event.body, at: options.at });
        result.fired++;
      }
    }).immediate();
  }
  return result;
}

/** Runs `read` in a read transaction of `db` (or in the one it is in). */
function readTransaction<T>(db: Database, read: () => T): T {
  const own = !db.inTransaction;
  if (own) db.run("BEGIN");
  try {
    return read();
  } finally {
    if (own) db.run("COMMIT");
  }
}

function evaluateOne(deps: PricingData, alert: Alert, snapshot: DataSnapshot, views: Map<string, PriceView>, now: Date): Outcome {
  const key = targetKey(alert);
  let view = views.get(key);
  if (!view) views.set(key, (view = priceView(deps, alert, now)));
  const { state, trigger } = evaluate(alert.condition, alert.state, filterChains(view, alert.chainIds));
  if (!trigger) return { alert, state, event: null };
  const id = newEventId();
  const body = eventBody({ eventId: id, alert, productName: view.product?.name ?? null, trigger, snapshot, created: now, test: false });
  return { alert, state, event: { id, body } };
}
