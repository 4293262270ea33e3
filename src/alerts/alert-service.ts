import type { AppData } from "../deps.ts";
import { log } from "../lib/log.ts";
import { AlertStore } from "./alert-store.ts";
import { DeliveryStore } from "./delivery-store.ts";
import { DeliveryWorker } from "./delivery-worker.ts";
import { DeliveryThread, type Deliverer } from "./delivery-thread-client.ts";
import { AlertEvaluator } from "./evaluator.ts";
import { SecretBox } from "./secret-box.ts";
import { httpSender, type Sender } from "./sender.ts";
import { realTimers, type Timers } from "./timers.ts";
import type { UrlPolicy } from "./url-guard.ts";

export interface AlertServiceOptions {
  /** Clock and timer of the delivery scheduler (tests pass manual ones). */
  timers?: Timers;
  /** How requests are sent (default: node:http(s) behind the URL guard). */
  send?: Sender;
  /** Jitter source, [0, 1). */
  random?: () => number;
  /** Per-attempt timeout (default 10 s). */
  timeoutMs?: number;
  box?: SecretBox;
}

/**
 * Price alerts' moving parts for one app: the stores, the secret box, the evaluator (after each new
 * data version, in a Worker thread) and the deliveries — on their own thread (delivery-thread.ts)
 * for a server on its data dir, on this one (DeliveryWorker) when tests inject a clock, a sender
 * or a secret box, or the database is in memory. Built by createServices; `stop()` (the
 * app's onStop) ends its timers; nothing of it lives at module level.
 */
export interface AlertService {
  alerts: AlertStore;
  deliveries: DeliveryStore;
  box: SecretBox;
  policy: UrlPolicy;
  evaluator: AlertEvaluator;
  worker: Deliverer;
  timers: Timers;
  stop(): void;
}

export function createAlertService(app: AppData, options: AlertServiceOptions = {}): AlertService {
  const alerts = new AlertStore(app.db.accounts);
  const deliveries = new DeliveryStore(app.db.accounts);
  const box = options.box ?? SecretBox.beside(app.db.accounts.filename);
  const policy: UrlPolicy = { allowLoopback: app.settings.webhookAllowLoopback };
  const timers = options.timers ?? realTimers;
  const file = app.db.accounts.filename;
  const ownThread = file !== "" && file !== ":memory:" && !options.timers && !options.send && !options.box && !options.random;
  const worker: Deliverer = ownThread
    ? new DeliveryThread({ accountsPath: file, allowLoopback: policy.allowLoopback, timeoutMs: options.timeoutMs, deliveries, log })
    : new DeliveryWorker({
        alerts,
        deliveries,
        box,
        send: options.send ?? httpSender(policy),
        timers,
        random: options.random ?? Math.random,
        timeoutMs: options.timeoutMs,
        log,
      });
  const evaluator = new AlertEvaluator({ app, alerts, clock: () => timers.now(), queued: () => worker.wake(), log });
  // Every new data version (an import by this server's worker or by `mehir import`), and at start:
  // alerts left behind by a stop during a pass are evaluated, and pending deliveries resume.
  app.data.onChange(() => void evaluator.run());
  void evaluator.run();
  worker.wake();
  return {
    alerts,
    deliveries,
    box,
    policy,
    evaluator,
    worker,
    timers,
    stop() {
      evaluator.stop();
      worker.stop();
    },
  };
}

