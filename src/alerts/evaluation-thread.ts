import { workerSpecifier } from "../workers.ts";
import type { EvaluationJob, EvaluationReply } from "./evaluation-job.ts";

type Log = (msg: string, fields?: Record<string, unknown>) => void;

/**
 * The server's evaluation worker (evaluation-worker.ts), one thread kept between passes: started
 * at the first pass, then asked "evaluate at the served version" after each import. A new Worker
 * per pass cost the serving process a fresh JavaScript VM each time — its modules transpiled and
 * evaluated, its code compiled again by the JIT and its heap built up, work partly done by the
 * process's helper threads at normal priority (bench/alerts.ts). A thread that fails or exits is
 * replaced at the next pass; `close()` ends it (the server's stop), after the pass under way.
 */
export class EvaluationThread {
  private worker: Worker | null = null;
  private pending: ((reply: EvaluationReply | null) => void) | null = null;
  private closed = false;

  /** `entrypoint`: the worker's script (tests give one that fails). */
  constructor(
    private readonly log: { warn: Log },
    private readonly entrypoint = workerSpecifier("alerts/evaluation-worker.ts"),
  ) {}

  /** The worker's reply to one job; null when the thread failed or was closed (logged). One job at a time. */
  evaluate(job: EvaluationJob): Promise<EvaluationReply | null> {
    if (this.closed) return Promise.resolve(null);
    if (this.pending) throw new Error("EvaluationThread: one job at a time");
    const worker = this.thread();
    return new Promise((resolve) => {
      this.pending = resolve;
      worker.postMessage(job);
    });
  }

  /** Ends the thread: now when idle, else once the pass under way has answered (the job's stop flag ends it early). */
  close(): void {
    this.closed = true;
    if (!this.pending) this.drop();
  }

  /** The running thread's id, null when none runs (tests: the same thread serves every pass; none is left after close). */
  get threadId(): number | null {
    // Bun's Worker has the id node:worker_threads gives (not in the DOM type).
    return (this.worker as (Worker & { threadId: number }) | null)?.threadId ?? null;
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    // A stopping process is not kept alive by it (nor by a pass under way: the server is stopping).
    const worker = new Worker(this.entrypoint, { ref: false });
    worker.onmessage = (event: MessageEvent<EvaluationReply>) => this.settle(event.data);
    worker.onerror = (event) => {
      this.log.warn("alerts: evaluation thread failed", { error: event.message });
      this.drop();
    };
    worker.addEventListener("close", () => {
      if (this.worker !== worker) return;
      this.log.warn("alerts: evaluation thread ended");
      this.drop();
    });
    this.worker = worker;
    return worker;
  }

  private settle(reply: EvaluationReply | null): void {
    const resolve = this.pending;
    this.pending = null;
    if (this.closed) this.drop();
    resolve?.(reply);
  }

  /** Terminates the thread (the next job starts a new one) and answers a job under way with null. */
  private drop(): void {
    const worker = this.worker;
    this.worker = null;
    worker?.terminate();
    if (this.pending) this.settle(null);
  }
}
