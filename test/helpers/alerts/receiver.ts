import type { Server } from "bun";

type AnyServer = Server<undefined>;

export interface Received {
  body: string;
  headers: Headers;
}

/**
 * A webhook receiver on 127.0.0.1: records every request and answers with the next status of
 * `statuses` (the last one repeats). `next()` resolves with the next request to arrive (no polling).
 */
export class Receiver {
  readonly received: Received[] = [];
  private waiters: ((r: Received) => void)[] = [];
  private readonly server: AnyServer;
  statuses: number[];

  constructor(statuses: number[] = [200]) {
    this.statuses = statuses;
    this.server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: async (request) => {
        const got = { body: await request.text(), headers: request.headers };
        const status = this.statuses.length > 1 ? this.statuses.shift()! : this.statuses[0]!;
        this.received.push(got);
        const waiter = this.waiters.shift();
        waiter?.(got);
        return new Response(status >= 300 && status < 400 ? null : "ok", { status, headers: status >= 300 && status < 400 ? { location: "http://127.0.0.1:1/" } : {} });
      },
    });
  }

  get url(): string {
    return `http://127.0.0.1:${this.server.port}/hook`;
  }

  /** The next request to arrive (or the one already received at `index`). */
  next(index = this.received.length): Promise<Received> {
    if (this.received[index]) return Promise.resolve(this.received[index]!);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  stop(): void {
    this.server.stop(true);
  }
}
