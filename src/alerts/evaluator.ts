import type { Database } from "bun:sqlite";
import type { AppData } from "../deps.ts";
import type { AlertStore } from "./alert-store.ts";
import type { EvaluationJob } from "./evaluation-job.ts";
import { evaluationPass, recordOutcomes, type Outcome, type PassResult } from "./evaluation-pass.ts";
import { EvaluationThread } from "./evaluation-thread.ts";

type Log = (msg: string, fields?: Record<string, unknown>) => void;

export interface EvaluatorDeps {
  app: AppData;
  alerts: AlertStore;
  /** The delivery queue's clock, ms (the delivery worker's). */
  clock: () => number;
  /** Called after events were queued (wakes the delivery worker). */
  queued: () => void;
  log: { info: Log; warn: Log };
  /** The evaluation worker's script (tests give one that dies); evaluation-worker.ts otherwise. */
  workerEntrypoint?: string;
}

/**
 * Alerts' outcomes written per transaction on the serving thread. Measured in bench/alerts.ts at
 * 50: 15–39 ms of the serving thread's CPU for a pass of 1,000 alerts, up to 7 ms in one
 * transaction at load 14 — a request arriving then waits that long; 25 halves the longest.
 */
const WRITE_BATCH = 25;

/** Whether a connection is to a file another thread can open (not an in-memory database). */
const isFile = (db: Database) => db.filename !== "" && db.filename !== ":memory:";

/**
 * Evaluates the active alerts after a new data version is served, off the request path: each
 * pass runs in the evaluation worker (evaluation-thread.ts: one thread, started at the first pass
 * and kept) on its own connections, at the imports' CPU priority; the serving thread only asks
 * for the pass and writes what it evaluated — states and events, in transactions of 25 alerts
 * (about a millisecond each), one per turn of the event loop (bench/alerts.ts measures the API's p99 while 1,000 alerts are evaluated). Databases in memory
 * (tests) cannot be opened from another thread: there the same pass (evaluation-pass.ts) runs on
 * the app's connections. A pass cut off by a stop resumes at the next start where it ended;
 * nothing fires twice. A pass that fails (its thread died) is tried once more at once, on a new
 * thread; the alerts it did not write stay behind the data version for the next pass otherwise.
 */
export class AlertEvaluator {
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  /** Shared with the pass's worker: 1 ends it early (the server is stopping). */
  private readonly stopFlag = new Int32Array(new SharedArrayBuffer(4));
  private readonly thread: EvaluationThread;

  constructor(private readonly deps: EvaluatorDeps) {
    this.thread = new EvaluationThread(deps.log, deps.workerEntrypoint);
  }

  /** Evaluates every active alert behind the served data version; calls during a pass queue one more pass. */
  run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      let retries = 1;
      do {
        this.again = false;
        if (!(await this.pass()) && retries-- > 0) this.again = true;
      } while (this.again && !this.stopped);
    })()
      .catch((error) => this.deps.log.warn("alerts: evaluation failed", { error: String((error as Error)?.stack ?? error) }))
      .finally(() => (this.running = null));
    return this.running;
  }

  /** Ends a pass under way early (the alerts it has not written are evaluated again at the next start) and the worker thread. */
  stop(): void {
    this.stopped = true;
    Atomics.store(this.stopFlag, 0, 1);
    this.thread.close();
  }

  /** The evaluation worker's thread id, null when none runs (tests: one thread for every pass, none after stop). */
  get threadId(): number | null {
    return this.thread.threadId;
  }

  /** One pass; false when it failed (logged). */
  private async pass(): Promise<boolean> {
    const { app, alerts } = this.deps;
    const version = app.data.current.version;
    // Nothing behind the served version (every start without a new import): no worker.
    if (this.stopped || version === 0 || alerts.behind(version, 0, 1).length === 0) return true;
    const now = app.now().getTime();
    const onFiles = isFile(app.db.prices) && isFile(app.db.accounts);
    const result = onFiles ? await this.inWorker(now) : evaluationPass(app, { now, at: this.deps.clock(), stopped: () => this.stopped });
    if (!result) return false;
    if (result.fired > 0) this.deps.queued();
    if (result.evaluated > 0) this.deps.log.info("alerts: evaluated", { data_version: result.version, alerts: result.evaluated, events: result.fired });
    // A newer version served meanwhile than the one the pass read: evaluate at it too.
    if (app.data.current.version > result.version) this.again = true;
    return true;
  }

  /** One pass in the evaluation worker, its outcomes written here; null when it failed (logged; its alerts stay behind for the next pass). */
  private async inWorker(now: number): Promise<PassResult | null> {
    const reply = await this.evaluateInWorker(now);
    if (!reply) return null;
    const result: PassResult = { version: reply.version, evaluated: 0, fired: 0 };
    for (let from = 0; from < reply.outcomes.length && !this.stopped; from += WRITE_BATCH) {
      // One short transaction per turn of the event loop: requests are answered in between.
      if (from > 0) await new Promise((resolve) => setImmediate(resolve));
      if (this.stopped) break;
      const written = recordOutcomes(this.deps.app.db.accounts, reply.outcomes.slice(from, from + WRITE_BATCH), reply.version, this.deps.clock());
      result.evaluated += written.evaluated;
      result.fired += written.fired;
    }
    return result;
  }

  /** The worker's evaluation of the alerts behind the data version; null when it failed (logged). */
  private async evaluateInWorker(now: number): Promise<{ version: number; outcomes: Outcome[] } | null> {
    const { app, log } = this.deps;
    const job: EvaluationJob = {
      pricesPath: app.db.prices.filename,
      accountsPath: app.db.accounts.filename,
      settings: app.settings,
      now,
      priority: app.settings.importPriority,
      stop: this.stopFlag.buffer as SharedArrayBuffer,
    };
    const reply = await this.thread.evaluate(job);
    if (reply?.kind === "done") return reply;
    if (reply) log.warn("alerts: evaluation failed", { error: reply.message });
    return null;
  }
}
