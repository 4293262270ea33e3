import type { Database } from "bun:sqlite";
import type { AppData } from "../deps.ts";
import type { AlertStore } from "./alert-store.ts";
import type { EvaluationJob, EvaluationReply } from "./evaluation-job.ts";
import { evaluationPass, type PassResult } from "./evaluation-pass.ts";
import { workerSpecifier } from "../workers.ts";

type Log = (msg: string, fields?: Record<string, unknown>) => void;

export interface EvaluatorDeps {
  app: AppData;
  alerts: AlertStore;
  /** The delivery queue's clock, ms (the delivery worker's). */
  clock: () => number;
  /** Called after events were queued (wakes the delivery worker). */
  queued: () => void;
  log: { info: Log; warn: Log };
}

/** Whether a connection is to a file another thread can open (not an in-memory database). */
const isFile = (db: Database) => db.filename !== "" && db.filename !== ":memory:";

/**
 * Evaluates the active alerts after a new data version is served, off the request path: each
 * pass runs in a Worker (evaluation-worker.ts) on its own connections, at the imports' CPU
 * priority, so the serving thread only starts it and reads its counts (bench/alerts.ts measures
 * the API's p99 while 1,000 alerts are evaluated). Databases in memory (tests) cannot be opened from another
 * thread: there the same pass (evaluation-pass.ts) runs on the app's connections. A pass cut off
 * by a stop resumes at the next start where it ended; nothing fires twice.
 */
export class AlertEvaluator {
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  /** Shared with the pass's worker: 1 ends it early (the server is stopping). */
  private readonly stopFlag = new Int32Array(new SharedArrayBuffer(4));

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
    Atomics.store(this.stopFlag, 0, 1);
  }

  private async pass(): Promise<void> {
    const { app, alerts } = this.deps;
    const version = app.data.current.version;
    // Nothing behind the served version (every start without a new import): no worker.
    if (this.stopped || version === 0 || alerts.behind(version, 0, 1).length === 0) return;
    const options = { now: app.now().getTime(), at: this.deps.clock() };
    const onFiles = isFile(app.db.prices) && isFile(app.db.accounts);
    const result = onFiles ? await this.inWorker(options) : evaluationPass(app, { ...options, stopped: () => this.stopped });
    if (!result) return;
    if (result.fired > 0) this.deps.queued();
    if (result.evaluated > 0) this.deps.log.info("alerts: evaluated", { data_version: result.version, alerts: result.evaluated, events: result.fired });
    // A newer version served meanwhile than the one the pass read: evaluate at it too.
    if (app.data.current.version > result.version) this.again = true;
  }

  /** One pass in a Worker; null when it failed (logged; its alerts stay behind for the next pass). */
  private inWorker(options: { now: number; at: number }): Promise<PassResult | null> {
    const { app, log } = this.deps;
    const worker = new Worker(workerSpecifier("alerts/evaluation-worker.ts"));
    return new Promise((resolve) => {
      const finish = (result: PassResult | null) => {
        worker.terminate();
        resolve(result);
      };
      worker.onmessage = (event: MessageEvent<EvaluationReply>) => {
        const reply = event.data;
        if (reply.kind === "done") return finish(reply);
        log.warn("alerts: evaluation failed", { error: reply.message });
        finish(null);
      };
      worker.onerror = (event) => {
        log.warn("alerts: evaluation failed", { error: event.message });
        finish(null);
      };
      const job: EvaluationJob = {
        pricesPath: app.db.prices.filename,
        accountsPath: app.db.accounts.filename,
        settings: app.settings,
        ...options,
        priority: app.settings.importPriority,
        stop: this.stopFlag.buffer as SharedArrayBuffer,
      };
      worker.postMessage(job);
    });
  }
}
