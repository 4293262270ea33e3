import type { AppDeps } from "../app.ts";
import type { DataSnapshot } from "../data-state.ts";
import type { Alert, AlertStore } from "./alert-store.ts";
import type { DeliveryStore } from "./delivery-store.ts";
import { evaluate, type AlertState } from "./evaluate.ts";
import { eventBody, newEventId } from "./event.ts";
import { filterChains, priceView, targetKey, type PriceView } from "./price-view.ts";

type Log = (msg: string, fields?: Record<string, unknown>) => void;

export interface EvaluatorDeps {
  app: AppDeps;
  alerts: AlertStore;
  deliveries: DeliveryStore;
  /** Lets requests run between slices (backgroundPace: yields, and backs off on a busy server). */
  pace: (workedMs: number) => Promise<void>;
  /** The delivery queue's clock, ms (the delivery worker's). */
  clock: () => number;
  /** Called after events were queued (wakes the delivery worker). */
  queued: () => void;
  log: { info: Log; warn: Log };
}

/** Work done on the serving thread before letting requests in again. */
const SLICE_MS = 2;
const BATCH = 200;

interface Outcome {
  alert: Alert;
  state: AlertState;
  event: { id: string; body: string } | null;
}

/**
 * Evaluates the active alerts after a new data version is served, off the request path: in
 * slices of a few milliseconds between which requests run (and which back off while the server
 * is busy), alerts on the same product and scope priced once per pass. Each alert's state and
 * the events it fires are written together, so a pass cut off by a stop resumes at the next start
 * where it ended (alerts already at this version are skipped; nothing fires twice).
 */
export class AlertEvaluator {
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(private readonly deps: EvaluatorDeps) {}

  /** Evaluates every active alert behind the served data version; calls during a pass queue one more pass. */
  run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.pass();
      } while (this.again && !this.stopped);
    })()
      .catch((error) => this.deps.log.warn("alerts: evaluation failed", { error: String((error as Error)?.stack ?? error) }))
      .finally(() => (this.running = null));
    return this.running;
  }

  stop(): void {
    this.stopped = true;
  }

  private async pass(): Promise<void> {
    const { app, alerts } = this.deps;
    const snapshot = app.data.current;
    if (snapshot.version === 0) return;
    const views = new Map<string, PriceView>();
    let evaluated = 0;
    let fired = 0;
    let after = 0;
    let pending: Outcome[] = [];
    let sliceStart = performance.now();
    for (;;) {
      const batch = alerts.behind(snapshot.version, after, BATCH);
      if (batch.length === 0) break;
      for (const alert of batch) {
        if (this.stopped) return this.write(pending, snapshot);
        after = alert.id;
        const outcome = this.evaluateOne(alert, snapshot, views);
        pending.push(outcome);
        evaluated++;
        if (outcome.event) fired++;
        const worked = performance.now() - sliceStart;
        if (worked >= SLICE_MS) {
          this.write(pending, snapshot);
          pending = [];
          await this.deps.pace(worked);
          sliceStart = performance.now();
          // A newer version arrived meanwhile: this pass stops; the next one evaluates at it.
          if (app.data.current.version !== snapshot.version) this.again = true;
          if (this.again) return;
        }
      }
    }
    this.write(pending, snapshot);
    if (evaluated > 0) this.deps.log.info("alerts: evaluated", { data_version: snapshot.version, alerts: evaluated, events: fired });
  }

  private evaluateOne(alert: Alert, snapshot: DataSnapshot, views: Map<string, PriceView>): Outcome {
    const now = this.deps.app.now();
    const key = targetKey(alert);
    let view = views.get(key);
    if (!view) views.set(key, (view = priceView(this.deps.app, alert, now)));
    const { state, trigger } = evaluate(alert.condition, alert.state, filterChains(view, alert.chainIds));
    if (!trigger) return { alert, state, event: null };
    const id = newEventId();
    const body = eventBody({ eventId: id, alert, productName: view.product?.name ?? null, trigger, snapshot, created: now, test: false });
    return { alert, state, event: { id, body } };
  }

  /** Saves states and queues events in one transaction. */
  private write(outcomes: Outcome[], snapshot: DataSnapshot): void {
    if (outcomes.length === 0) return;
    const { alerts, deliveries, app } = this.deps;
    const at = this.deps.clock();
    let queued = false;
    app.db.accounts.transaction(() => {
      for (const o of outcomes) {
        alerts.saveState(o.alert.id, o.state, snapshot.version);
        if (o.event) {
          deliveries.insert({ eventId: o.event.id, alertId: o.alert.id, isTest: false, payload: o.event.body, at });
          queued = true;
        }
      }
    }).immediate();
    if (queued) this.deps.queued();
  }
}
