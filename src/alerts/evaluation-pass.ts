import type { AppDeps } from "../app.ts";
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
 * Prices are read in one read transaction, so every alert sees the same data version (an import
 * committing meanwhile is evaluated by the next pass); alerts on the same product and scope are
 * priced once. Each batch of alerts' states and their events are written in one transaction, and
 * an event is queued only with the state it follows from — recorded only when the stored state is
 * older — so a pass cut off by a stop resumes at the next start where it ended, and two passes at
 * the same version (a stopped server's and a new one's) never queue an event twice.
 */
export function evaluationPass(deps: AppDeps, options: PassOptions): PassResult {
  const prices = deps.db.prices;
  const own = !prices.inTransaction;
  if (own) prices.run("BEGIN");
  try {
    // The data version this transaction reads (not the app's view of it, which may lag or lead).
    const data = new DataState(prices, deps.data.name);
    return evaluateAll({ ...deps, data }, data.current, options);
  } finally {
    if (own) prices.run("COMMIT");
  }
}

function evaluateAll(deps: AppDeps, snapshot: DataSnapshot, options: PassOptions): PassResult {
  const result: PassResult = { version: snapshot.version, evaluated: 0, fired: 0 };
  if (snapshot.version === 0) return result;
  const alerts = new AlertStore(deps.db.accounts);
  const deliveries = new DeliveryStore(deps.db.accounts);
  const views = new Map<string, PriceView>();
  const now = new Date(options.now);
  let after = 0;
  while (!options.stopped()) {
    const batch = alerts.behind(snapshot.version, after, BATCH);
    if (batch.length === 0) break;
    const outcomes: Outcome[] = [];
    for (const alert of batch) {
      if (options.stopped()) break;
      after = alert.id;
      outcomes.push(evaluateOne(deps, alert, snapshot, views, now));
    }
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

function evaluateOne(deps: AppDeps, alert: Alert, snapshot: DataSnapshot, views: Map<string, PriceView>, now: Date): Outcome {
  const key = targetKey(alert);
  let view = views.get(key);
  if (!view) views.set(key, (view = priceView(deps, alert, now)));
  const { state, trigger } = evaluate(alert.condition, alert.state, filterChains(view, alert.chainIds));
  if (!trigger) return { alert, state, event: null };
  const id = newEventId();
  const body = eventBody({ eventId: id, alert, productName: view.product?.name ?? null, trigger, snapshot, created: now, test: false });
  return { alert, state, event: { id, body } };
}
