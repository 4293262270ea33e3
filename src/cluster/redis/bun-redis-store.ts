import { RedisClient } from "bun";
import { StoreUnavailable, type LuaScript, type SharedStore } from "./shared-store.ts";

export interface BunRedisStoreOptions {
  /** Longest wait for any command, connecting included (ms). */
  timeoutMs?: number;
  /** Least time between two connection attempts after a failure (ms). */
  retryMs?: number;
  /** How often the subscriber's connection is checked and, when lost, made again (ms). */
  watchMs?: number;
}

/**
 * The shared store on Bun's built-in Redis client. Bun's client has had reconnection bugs
 * (oven-sh/bun#19131, #20836, #24019: no reconnect after a restart, `connect()` hanging while the
 * server is down), so this wrapper does not rely on them: its clients never reconnect or queue
 * by themselves; every call is bounded by `timeoutMs`, and a client that fails or times out is
 * closed and replaced by a new one at the next call (at most one attempt per `retryMs`; calls in
 * between fail at once). The subscriber is watched and made again the same way.
 */
export class BunRedisStore implements SharedStore {
  private client: RedisClient | null = null;
  private failedAt = -Infinity;
  private readonly loaded = new WeakMap<RedisClient, Set<string>>();
  private subscriber: RedisClient | null = null;
  private readonly subscriptions = new Map<string, { onMessage: (message: string) => void; onGap: () => void }>();
  private watch: ReturnType<typeof setInterval> | null = null;
  private closed = false;
  private readonly timeoutMs: number;
  private readonly retryMs: number;

  constructor(
    private readonly url: string,
    private readonly options: BunRedisStoreOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 1000;
    this.retryMs = options.retryMs ?? 250;
  }

  async send(command: string, args: (string | number)[]): Promise<unknown> {
    const client = await this.connected();
    return this.bounded(client, client.send(command, args.map(String)));
  }

  async script(script: LuaScript, keys: string[], args: (string | number)[]): Promise<unknown> {
    const client = await this.connected();
    const argv = [String(keys.length), ...keys, ...args.map(String)];
    let loaded = this.loaded.get(client);
    if (!loaded) this.loaded.set(client, (loaded = new Set()));
    if (!loaded.has(script.sha1)) {
      await this.bounded(client, client.send("SCRIPT", ["LOAD", script.source]));
      loaded.add(script.sha1);
    }
    try {
      return await this.bounded(client, client.send("EVALSHA", [script.sha1, ...argv]));
    } catch (error) {
      // The server lost its script cache (a restart that kept the connection's client object).
      if (!(error instanceof StoreUnavailable) && /NOSCRIPT/.test(String(error))) {
        loaded.delete(script.sha1);
        return this.bounded(client, client.send("EVAL", [script.source, ...argv]));
      }
      throw error;
    }
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.send("PUBLISH", [channel, message]);
  }

  subscribe(channel: string, onMessage: (message: string) => void, onGap: () => void): void {
    this.subscriptions.set(channel, { onMessage, onGap });
    this.watch ??= setInterval(() => void this.keepSubscribed(), this.options.watchMs ?? 500);
    this.watch.unref?.();
    void this.keepSubscribed();
  }

  close(): void {
    this.closed = true;
    if (this.watch) clearInterval(this.watch);
    this.drop(this.client);
    this.client = null;
    this.subscriber?.close();
    this.subscriber = null;
  }

  /** The current client, connecting a new one if needed (bounded; at most one attempt per retryMs). */
  private async connected(): Promise<RedisClient> {
    if (this.closed) throw new StoreUnavailable("the store is closed");
    if (this.client?.connected) return this.client;
    if (this.client === null && performance.now() - this.failedAt < this.retryMs) throw new StoreUnavailable("Redis is unreachable (retrying)");
    const client = (this.client ??= this.newClient());
    await this.bounded(client, client.connect());
    return client;
  }

  private newClient(): RedisClient {
    const client = new RedisClient(this.url, { autoReconnect: false, enableOfflineQueue: false, connectionTimeout: this.timeoutMs, enableAutoPipelining: true });
    client.onclose = () => {
      if (this.client === client) this.fail(client);
    };
    return client;
  }

  /**
   * A call's answer, or StoreUnavailable when Redis has not answered it within timeoutMs of its
   * sending. Bun writes the commands a turn of the event loop queued once that turn's JavaScript
   * has run, so the clock starts at the next turn: a long synchronous stretch on this thread right
   * after the call (a cold answer, a snapshot switch — seconds on a loaded machine) delays the
   * sending and is not Redis failing to answer. A lost connection replaces the client; a slow
   * answer does not (the other calls on the connection may still be answered).
   */
  private async bounded<T>(client: RedisClient, call: Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let sent: ReturnType<typeof setImmediate> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      sent = setImmediate(() => {
        timer = setTimeout(() => reject(new StoreUnavailable(`Redis did not answer within ${this.timeoutMs} ms`)), this.timeoutMs);
      });
    });
    try {
      return await Promise.race([call, timeout]);
    } catch (error) {
      if (error instanceof StoreUnavailable) {
        if (!client.connected) this.fail(client);
        throw error;
      }
      // A reply error (a script's own error) leaves the connection usable.
      if (client.connected && /^(ERR|NOSCRIPT|WRONGTYPE)/.test((error as Error).message ?? "")) throw error;
      this.fail(client);
      throw new StoreUnavailable(`Redis: ${(error as Error).message}`);
    } finally {
      clearImmediate(sent);
      clearTimeout(timer);
      call.catch(() => undefined);
    }
  }

  private fail(client: RedisClient): void {
    if (this.client === client) {
      this.client = null;
      this.failedAt = performance.now();
    }
    this.drop(client);
  }

  private drop(client: RedisClient | null): void {
    if (!client) return;
    client.onclose = null;
    try {
      client.close();
    } catch {
      // already closed
    }
  }

  private subscribing = false;

  /**
   * Makes the subscriber (again) when it is gone and subscribes to every channel; then reports a
   * gap to each (messages published while none listened are lost: the users resynchronise).
   */
  private async keepSubscribed(): Promise<void> {
    if (this.closed || this.subscribing || this.subscriptions.size === 0 || this.subscriber?.connected) return;
    this.subscribing = true;
    this.drop(this.subscriber);
    this.subscriber = null;
    const subscriber = new RedisClient(this.url, { autoReconnect: false, enableOfflineQueue: false, connectionTimeout: this.timeoutMs });
    try {
      await this.bounded(subscriber, subscriber.connect());
      for (const [channel, { onMessage }] of this.subscriptions) {
        await this.bounded(subscriber, subscriber.subscribe(channel, (message) => onMessage(message)));
      }
      this.subscriber = subscriber;
      for (const { onGap } of this.subscriptions.values()) onGap();
    } catch {
      this.drop(subscriber);
    } finally {
      this.subscribing = false;
    }
  }
}
