import { type WorkerEntrypoint, workerSpecifier } from "../workers.ts";

/** What a job worker posts back: its result, or why it failed. */
export type WorkerReply<Result> = ({ kind: "done" } & Result) | { kind: "error"; message: string };

export interface WorkerRunsOptions<Result> {
  /** The worker's module, as listed in src/workers.ts (e.g. "exports/export-worker.ts"). */
  worker: WorkerEntrypoint;
  /** The message that starts a run (read when the run starts, so it carries the data then current). */
  job: () => unknown;
  done: (result: Result, ms: number) => void;
  failed: (message: string) => void;
}

/**
 * Runs a job in a Worker off the request path, one run at a time: a request while a run is under way
 * (a second import meanwhile) makes one more run after it, not one per request.
 *
 * @example const runs = new WorkerRuns({ worker: "exports/export-worker.ts", job: () => options, done, failed }); data.onChange(() => runs.request());
 */
export class WorkerRuns<Result> {
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private worker: Worker | null = null;

  constructor(private readonly options: WorkerRunsOptions<Result>) {}

  request(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => (this.running = null));
  }

  /** Resolves when no run is under way or asked for. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Ends a run under way; no run starts after. */
  stop(): void {
    this.stopped = true;
    this.worker?.terminate();
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      await this.runOnce();
    } while (this.again && !this.stopped);
  }

  private runOnce(): Promise<void> {
    const { done, failed } = this.options;
    const started = performance.now();
    const worker = new Worker(workerSpecifier(this.options.worker));
    this.worker = worker;
    return new Promise<void>((resolve) => {
      const finish = () => {
        worker.terminate();
        this.worker = null;
        resolve();
      };
      worker.onmessage = (event: MessageEvent<WorkerReply<Result>>) => {
        const reply = event.data;
        if (reply.kind === "done") done(reply, Math.round(performance.now() - started));
        else failed(reply.message);
        finish();
      };
      worker.onerror = (event) => {
        failed(event.message);
        finish();
      };
      worker.postMessage(this.options.job());
    });
  }
}
