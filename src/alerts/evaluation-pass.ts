import type { Database } from "bun:sqlite";
import type { AppData, PricingData } from "../deps.ts";
import { dataTables } from "../pricing/data-tables.ts";
import { DataState, type DataSnapshot } from "../data/data-state.ts";
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

/** One alert evaluated: its new state, and the event to queue when its condition became true. */
export interface Outcome {
  alertId: number;
  state: AlertState;
  event: { id: string; body: string } | null;
}

/**
 * Evaluates every active alert whose state is behind the data version, and queues the events of
 * those whose condition became true: evaluateBehind, each batch written by recordOutcomes as it
 * is evaluated. `deps` are the app's deps on the connections it reads — for in-memory databases
 * (tests), where the evaluation worker cannot open them.
 */
export function evaluationPass(deps: AppData, options: PassOptions): PassResult {
  const result: PassResult = { version: 0, evaluated: 0, fired: 0 };
  result.version = evaluateBehind(deps, options, (outcomes, version) => {
    const written = recordOutcomes(deps.db.accounts, outcomes, version, options.at);
    result.evaluated += written.evaluated;
    result.fired += written.fired;
  });
  return result;
}

/**
 * Evaluates every active alert whose state is behind the data version, in batches, handing each
 * batch's outcomes to `evaluated`; returns the data version evaluated. It only reads: the
 * evaluation worker (evaluation-worker.ts) sends the outcomes to the serving thread, which writes
 * them (recordOutcomes) — a write transaction held by a thread at idle CPU priority could be
 * preempted for as long as the machine is busy, and the serving thread's own writes to the
 * accounts database (usage counts, deliveries) would wait for it.
 *
 * Every alert of a pass is evaluated on the same data: each batch of alerts is priced in a read
 * transaction that first checks the data version is still the pass's (an import commits its data
 * and the new version together); when an import committed meanwhile, the pass ends there and the
 * next one evaluates at the new version. Short read transactions, not one for the whole pass: a
 * pass at idle CPU priority on a busy server may take long, and an open reader would hold back
 * the WAL checkpoints of the next import. Alerts on the same product and scope are priced once.
 */
export function evaluateBehind(deps: AppData, options: PassOptions, evaluated: (outcomes: Outcome[], version: number) => void): number {
  // The data version the pass evaluates (not the app's view of it, which may lag).
  const data = new DataState(deps.db.prices, deps.data.name);
  const snapshot = data.current;
  if (snapshot.version === 0) return 0;
  const pass = { ...deps, data, tables: dataTables(data) };
  const alerts = new AlertStore(deps.db.accounts);
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
    evaluated(outcomes, snapshot.version);
  }
  return snapshot.version;
}

/**
 * Writes evaluated alerts' states and their events in one transaction, an event only with the
 * state it follows from — recorded only when the stored state is older — so a pass cut off by a
 * stop resumes at the next start where it ended, and two passes at the same version (a stopping
 * server's and the next start's) never queue an event twice. `at`: when the deliveries are due.
 */
export function recordOutcomes(accounts: Database, outcomes: readonly Outcome[], version: number, at: number): { evaluated: number; fired: number } {
  const alerts = new AlertStore(accounts);
  const deliveries = new DeliveryStore(accounts);
  const written = { evaluated: 0, fired: 0 };
  accounts.transaction(() => {
    for (const o of outcomes) {
      if (!alerts.saveState(o.alertId, o.state, version)) continue;
      written.evaluated++;
      if (!o.event) continue;
      deliveries.insert({ eventId: o.event.id, alertId: o.alertId, isTest: false, payload: o.event.body, at });
      written.fired++;
    }
  }).immediate();
  return written;
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
  if (!trigger) return { alertId: alert.id, state, event: null };
  const id = newEventId();
  const body = eventBody({ eventId: id, alert, productName: view.product?.name ?? null, trigger, snapshot, created: now, test: false });
  return { alertId: alert.id, state, event: { id, body } };
}
