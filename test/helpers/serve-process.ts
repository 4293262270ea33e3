import { onTestFinished } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { eachLine } from "./lines.ts";

export const MAIN = join(import.meta.dir, "../../src/main.ts");

/** Lines kept per process (at least): enough to explain a failure, bounded for servers that log every request. */
const KEPT_LINES = 2000;

/**
 * `mehir serve` (bun src/main.ts serve) in a child process on a free loopback port, its log kept
 * in memory instead of the test output (`withLogs` prints it when a test fails or times out). Starting resolves at the "listening" line; readiness, log lines and the process's
 * end are events a test can wait on, so nothing here depends on how busy the machine is.
 * @example const server = await ServeProcess.start({ dataDir }); await server.ready();
 */
export class ServeProcess {
  readonly lines: string[] = [];
  private readonly waiters: { match: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  private url_ = "";
  private metricsUrl_: string | null = null;
  private drained_: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly proc: Subprocess<"ignore", "pipe", "pipe">,
    readonly name: string,
  ) {}

  /**
   * Starts it with `args` after `serve` (default: a free loopback port on `dataDir`) and the test
   * environment plus `env` (the log at info level unless `env` says otherwise).
   */
  static async start(options: { dataDir?: string; env?: Record<string, string | undefined>; args?: string[]; name?: string }): Promise<ServeProcess> {
    const args = options.args ?? ["--port", "0", "--host", "127.0.0.1", ...(options.dataDir ? ["--data-dir", options.dataDir] : [])];
    const proc = Bun.spawn([process.execPath, MAIN, "serve", ...args], {
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, MEHIR_LOG_LEVEL: "info", MEHIR_METRICS_ADDR: "127.0.0.1:0", ...options.env },
    });
    const server = new ServeProcess(proc, options.name ?? "serve");
    const listening = server.nextLine((line) => line.includes('"msg":"listening"'));
    const drained = Promise.all([eachLine(proc.stdout, (line) => server.remember(line)), eachLine(proc.stderr, (line) => server.remember(`[stderr] ${line}`))]);
    server.drained_ = drained;
    const exited = drained.then(() => proc.exited).then((code) => {
      throw new Error(`${server.name} exited (${code}) before listening:\n${server.logs()}`);
    });
    const listened = JSON.parse(await Promise.race([listening, exited])) as { url: string; metrics_url: string | null };
    server.url_ = listened.url;
    server.metricsUrl_ = listened.metrics_url;
    return server;
  }

  get url(): string {
    return this.url_;
  }

  /** The metrics listener's /metrics URL (null with MEHIR_METRICS=off). */
  get metricsUrl(): string | null {
    return this.metricsUrl_;
  }

  /** The log so far (stdout and stderr lines; the oldest dropped past a bound). */
  logs(): string {
    return this.lines.join("\n");
  }

  /** Resolves with the next log line that `match` accepts (from now on). */
  nextLine(match: (line: string) => boolean): Promise<string> {
    const { promise, resolve } = Promise.withResolvers<string>();
    this.waiters.push({ match, resolve });
    return promise;
  }

  /** Resolves once /readyz answers 200 (the readiness probe; the test's timeout bounds the wait), with its body. */
  async ready(): Promise<{ data_version: number } & Record<string, unknown>> {
    for (;;) {
      const res = await fetch(`${this.url}/readyz`).catch(() => null);
      if (res?.status === 200) return (await res.json()) as { data_version: number };
      await res?.body?.cancel();
      await Bun.sleep(50);
    }
  }

  /** Resolves once /readyz answers 200 at data version `version` (the server follows imports made by other processes). */
  async readyAt(version: number): Promise<void> {
    while ((await this.ready()).data_version !== version) await Bun.sleep(50);
  }

  /** Resolves once the process's stdout and stderr are read to their end (every line it wrote is in `lines`). */
  async drained(): Promise<void> {
    await this.drained_;
  }

  /** Sends `signal` and resolves with the exit code. */
  async stop(signal: "SIGTERM" | "SIGKILL" = "SIGTERM"): Promise<number> {
    this.proc.kill(signal);
    return await this.proc.exited;
  }

  private remember(line: string): void {
    this.lines.push(line);
    if (this.lines.length > 2 * KEPT_LINES) this.lines.splice(0, KEPT_LINES);
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const waiter = this.waiters[i]!;
      if (!waiter.match(line)) continue;
      this.waiters.splice(i, 1);
      waiter.resolve(line);
    }
  }
}

/**
 * The body of a test (or hook), printing `logs()` on stderr if it throws or the test times out,
 * and nothing when it passes (bun's onTestFinished runs after either outcome; the flag says
 * which; hooks have no onTestFinished, so they print when the body throws).
 * @example test("…", withLogs(() => server.logs(), async () => { … }), 60_000);
 */
export function withLogs(logs: () => string, body: () => Promise<void>): () => Promise<void> {
  const print = () => console.error(`--- log of the processes under test ---\n${logs()}`);
  return async () => {
    let passed = false;
    let inTest = true;
    try {
      onTestFinished(() => {
        if (!passed) print();
      });
    } catch {
      inTest = false;
    }
    try {
      await body();
      passed = true;
    } catch (error) {
      if (!inTest) print();
      throw error;
    }
  };
}

/** The logs of several processes, each line prefixed with its process's name. */
export const logsOf = (servers: readonly ServeProcess[]) => () => servers.map((s) => s.lines.map((line) => `[${s.name}] ${line}`).join("\n")).join("\n");
