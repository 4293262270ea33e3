import { workerSpecifier } from "../workers.ts";
import type { DeliveryThreadReply, DeliveryThreadRequest } from "./delivery-thread.ts";
import type { DeliveryStore } from "./delivery-store.ts";

/** What the alert service asks of its deliveries, on this thread (DeliveryWorker) or on their own (DeliveryThread). */
export interface Deliverer {
  /** Looks at the queue again (after new events were queued, at start). */
  wake(): void;
  stop(): void;
  /** Attempts one delivery now (a test event); resolves when the attempt is recorded. */
  deliverNow(id: number): Promise<void>;
  /** Resolves when no attempt is under way and none is due now. */
  idle(): Promise<void>;
}

/**
 * The server's deliveries sent from their own thread (delivery-thread.ts): this side only passes
 * the requests on. The thread is started when the queue first holds a delivery (a server whose
 * alerts never fire has none) and kept until the server stops.
 */
export class DeliveryThread implements Deliverer {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, () => void>();
  private nextRef = 1;
  private stopped = false;

  constructor(
    private readonly options: {
      accountsPath: string;
      allowLoopback: boolean;
      timeoutMs?: number;
      deliveries: DeliveryStore;
      log: { warn: (msg: string, fields?: Record<string, unknown>) => void };
    },
  ) {}

  wake(): void {
    if (this.stopped) return;
    if (!this.worker && this.options.deliveries.upcoming(1).length === 0) return;
    this.thread().postMessage({ kind: "wake" } satisfies DeliveryThreadRequest);
  }

  deliverNow(id: number): Promise<void> {
    return this.ask((ref) => ({ kind: "deliver-now", id, ref }));
  }

  idle(): Promise<void> {
    if (!this.worker) return Promise.resolve();
    return this.ask((ref) => ({ kind: "idle", ref }));
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    const worker = this.worker;
    if (!worker) return;
    // The thread closes its connection, then ends; in-flight attempts are retried after a restart.
    void this.ask((ref) => ({ kind: "stop", ref }), true).then(() => worker.terminate());
  }

  private ask(request: (ref: number) => DeliveryThreadRequest, evenStopped = false): Promise<void> {
    if (this.stopped && !evenStopped) return Promise.resolve();
    const ref = this.nextRef++;
    return new Promise((resolve) => {
      this.waiting.set(ref, resolve);
      this.thread().postMessage(request(ref));
    });
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    // Pending retries must not keep a stopping process alive (as realTimers' timers do not).
    const worker = new Worker(workerSpecifier("alerts/delivery-thread.ts"), { ref: false });
    worker.onmessage = (event: MessageEvent<DeliveryThreadReply>) => {
      const resolve = this.waiting.get(event.data.ref);
      this.waiting.delete(event.data.ref);
      resolve?.();
    };
    worker.onerror = (event) => {
      // Not expected (the worker catches an attempt's failures): logged; the queue stays in SQLite,
      // nobody waits forever, and the next request starts a new thread.
      this.options.log.warn("alerts: delivery thread failed", { error: event.message });
      if (this.worker === worker) this.worker = null;
      worker.terminate();
      for (const resolve of this.waiting.values()) resolve();
      this.waiting.clear();
    };
    const { accountsPath, allowLoopback, timeoutMs } = this.options;
    worker.postMessage({ kind: "start", accountsPath, allowLoopback, timeoutMs } satisfies DeliveryThreadRequest);
    this.worker = worker;
    return worker;
  }
}
