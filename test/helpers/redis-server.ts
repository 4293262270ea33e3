import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe } from "bun:test";
import { BunRedisStore } from "../../src/cluster/redis/bun-redis-store.ts";
import { eachLine } from "./lines.ts";

/** Why Redis tests are skipped here, or null when `redis-server` is installed (CI installs Debian's). */
export const redisSkipReason: string | null = Bun.which("redis-server") ? null : "redis-server is not installed (Debian: apt-get install redis-server)";

async function freePort(): Promise<number> {
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = server.port;
  server.stop(true);
  return port;
}

/**
 * A redis-server of a test's own: loopback, a random free port, its own folder, no persistence
 * (so a restart is a data loss, as on a server without AOF). `stop()` and `start()` again keep
 * the port (a restart as clients see it).
 */
export class TestRedis {
  private process: ReturnType<typeof Bun.spawn> | null = null;
  readonly dir = mkdtempSync(join(tmpdir(), "mehir-redis-"));
  port = 0;
  private output = "";

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts it and resolves once it says it accepts connections (its log line; no deadline of its own). */
  async start(): Promise<void> {
    if (this.port === 0) this.port = await freePort();
    const process = Bun.spawn(["redis-server", "--bind", "127.0.0.1", "--port", String(this.port), "--dir", this.dir, "--save", "", "--appendonly", "no", "--protected-mode", "yes"], {
      stdout: "pipe",
      stderr: "pipe",
    });
    this.process = process;
    const ready = Promise.withResolvers<void>();
    const drained = eachLine(process.stdout, (line) => {
      this.output += `${line}\n`;
      if (line.includes("Ready to accept connections")) ready.resolve();
    });
    void new Response(process.stderr).text().then((t) => (this.output += t));
    void drained.then(() => ready.reject(new Error(`redis-server did not start on ${this.port}: ${this.output}`)));
    await ready.promise;
  }

  /** Stops it (SIGKILL: as a crash) and waits for the process to end. */
  async stop(): Promise<void> {
    this.process?.kill(9);
    await this.process?.exited;
    this.process = null;
  }

  cli(...args: string[]): string {
    return Bun.spawnSync(["redis-cli", "-p", String(this.port), ...args]).stdout.toString().trim();
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * One redis-server for a test file, started before its tests and removed after, with the stores
 * its tests open (closed at the end). Without redis-server the file says why and skips them.
 * @example const { describeRedis, redis, newStore } = redisSuite("Redis tests", 500);
 */
export function redisSuite(suite: string, defaultTimeoutMs: number) {
  if (redisSkipReason) console.warn(`skipping ${suite}: ${redisSkipReason}`);
  const redis = redisSkipReason ? (null as unknown as TestRedis) : new TestRedis();
  const stores: BunRedisStore[] = [];
  beforeAll(async () => {
    if (!redisSkipReason) await redis.start();
  });
  afterAll(async () => {
    for (const store of stores) store.close();
    await redis?.dispose();
  });
  return {
    describeRedis: redisSkipReason ? describe.skip : describe,
    redis,
    newStore(timeoutMs = defaultTimeoutMs): BunRedisStore {
      const store = new BunRedisStore(redis.url, { timeoutMs, retryMs: 100, watchMs: 100 });
      stores.push(store);
      return store;
    },
  };
}
