import type { AlertStore } from "./alert-store.ts";
import type { Delivery, DeliveryStore } from "./delivery-store.ts";
import { ATTEMPT_TIMEOUT_MS, DISABLE_AFTER_MS, nextAttemptAt } from "./retry-schedule.ts";
import type { SecretBox } from "./secret-box.ts";
import type { Sender } from "./sender.ts";
import { signatureHeader } from "./signature.ts";
import type { Timers } from "./timers.ts";

type Log = (msg: string, fields?: Record<string, unknown>) => void;

export interface DeliveryWorkerDeps {
  alerts: AlertStore;
  deliveries: DeliveryStore;
  box: SecretBox;
  send: Sender;
  timers: Timers;
  random: () => number;
  timeoutMs?: number;
  log: { info: Log; warn: Log };
}

/** Deliveries sent at the same time at most (each waits on the network, not on this thread). */
const PARALLEL = 8;
/** Timers are re-armed at least this often (setTimeout's range is ~24 days; clocks jump). */
const MAX_TIMER_MS = 3600_000;
export const DISABLED_REASON = "Deliveries to this URL failed for 3 days; a successful test event (POST …/test/) enables it again.";

/**
 * Sends queued webhook events from `alert_deliveries`, retrying failures on the schedule of
 * retry-schedule.ts. The queue lives in SQLite, so a restart resumes it: pending deliveries are
 * due again from where they were (an attempt cut off by the stop is simply retried). A delivery
 * answered 2xx is marked succeeded before anything else is sent and is never selected again; the
 * only way a receiver sees an event twice is a crash between its 2xx and that write — receivers
 * deduplicate on Mehir-Event-Id. One timer, armed for the earliest due delivery, on the injected
 * clock (tests move it by hand).
 */
export class DeliveryWorker {
  private timer: unknown = null;
  private timerAt = Infinity;
  private readonly inFlight = new Map<number, Promise<void>>();
  private stopped = false;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly deps: DeliveryWorkerDeps) {}

  /** Looks at the queue again (after new events were queued, at start). */
  wake(): void {
    if (this.stopped) return;
    this.fill();
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) this.deps.timers.clearTimeout(this.timer);
    this.timer = null;
  }

  /**
   * Attempts one delivery now (a test event), unless it is already under way; resolves when the
   * attempt is recorded.
   */
  async deliverNow(id: number): Promise<void> {
    const running = this.inFlight.get(id);
    if (running) return running;
    const delivery = this.deps.deliveries.byId(id);
    if (!delivery || delivery.status !== "pending") return;
    await this.start(delivery);
  }

  /** Resolves when no attempt is under way and none is due now (tests wait on it). */
  idle(): Promise<void> {
    if (this.inFlight.size === 0 && !this.hasDue()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** When the earliest pending delivery not under way is due; null when none. */
  private nextDue(): number | null {
    for (const d of this.deps.deliveries.upcoming(this.inFlight.size + 1)) if (!this.inFlight.has(d.id)) return d.at;
    return null;
  }

  private hasDue(): boolean {
    if (this.stopped) return false;
    const next = this.nextDue();
    return next !== null && next <= this.deps.timers.now();
  }

  /** Starts due deliveries, up to PARALLEL under way. */
  private fill(): void {
    if (this.stopped) return;
    const free = PARALLEL - this.inFlight.size;
    if (free <= 0) return;
    const due = this.deps.deliveries.due(this.deps.timers.now(), free + this.inFlight.size).filter((d) => !this.inFlight.has(d.id));
    for (const d of due.slice(0, free)) void this.start(d);
  }

  /** Sets the timer for the earliest pending delivery not under way. */
  private arm(): void {
    if (this.stopped) return;
    const next = this.nextDue();
    if (next === null) return this.disarm();
    const now = this.deps.timers.now();
    // Due now but every slot is busy: the next attempt to finish fills again.
    if (next <= now && this.inFlight.size >= PARALLEL) return;
    if (this.timer !== null && this.timerAt <= next) return;
    this.disarm();
    this.timerAt = next;
    this.timer = this.deps.timers.setTimeout(() => {
      this.timer = null;
      this.timerAt = Infinity;
      this.fill();
      this.arm();
      this.settleIdle();
    }, Math.min(MAX_TIMER_MS, Math.max(0, next - now)));
  }

  private disarm(): void {
    if (this.timer !== null) this.deps.timers.clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Infinity;
  }

  private start(delivery: Delivery): Promise<void> {
    const run = this.attempt(delivery)
      .catch((error) => this.deps.log.warn("alerts: delivery attempt crashed", { event_id: delivery.eventId, error: String(error) }))
      .finally(() => {
        this.inFlight.delete(delivery.id);
        this.fill();
        this.arm();
        this.settleIdle();
      });
    this.inFlight.set(delivery.id, run);
    return run;
  }

  private settleIdle(): void {
    if (this.idleWaiters.length === 0 || this.inFlight.size > 0 || this.hasDue()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  private async attempt(delivery: Delivery): Promise<void> {
    const { alerts, deliveries, timers, box } = this.deps;
    const alert = alerts.byId(delivery.alertId);
    const sealed = alerts.sealedSecret(delivery.alertId);
    if (!alert || !sealed) return; // deleted meanwhile: its deliveries went with it
    let secret: string;
    try {
      secret = box.open(sealed.sealed, sealed.publicId);
    } catch {
      // Not a transient failure: the key file beside accounts.sqlite is not the one it was sealed with.
      deliveries.attemptFailed(delivery.id, timers.now(), null, "the signing secret cannot be unsealed (webhook-secrets.key missing or replaced)", null);
      this.deps.log.warn("alerts: signing secret cannot be unsealed", { alert_id: alert.publicId });
      return;
    }
    const t = Math.floor(timers.now() / 1000);
    const headers = { "mehir-signature": signatureHeader(secret, t, delivery.payload), "mehir-event-id": delivery.eventId };
    const result = await this.deps.send(alert.url, headers, delivery.payload, this.deps.timeoutMs ?? ATTEMPT_TIMEOUT_MS);
    const at = timers.now();
    if ("status" in result && result.status >= 200 && result.status < 300) {
      deliveries.succeeded(delivery.id, at, result.status);
      alerts.markHealthy(alert.id);
      return;
    }
    const status = "status" in result ? result.status : null;
    const error = "status" in result ? (result.status >= 300 && result.status < 400 ? "redirects are not followed" : null) : result.error;
    const attempts = delivery.attempts + 1;
    // A test event is attempted once: its answer is what the caller of POST …/test/ wants to see.
    const nextAt = delivery.isTest ? null : nextAttemptAt(delivery.createdAt, at, attempts, this.deps.random);
    deliveries.attemptFailed(delivery.id, at, status, error, nextAt);
    const failingSince = alerts.markFailing(alert.id, at);
    if (failingSince !== null && at - failingSince >= DISABLE_AFTER_MS && alert.status === "active") {
      alerts.disable(alert.id, at, DISABLED_REASON);
      deliveries.failPending(alert.id, at, "endpoint disabled");
      this.deps.log.warn("alerts: endpoint disabled", { alert_id: alert.publicId, failing_since: new Date(failingSince).toISOString() });
    }
  }
}
