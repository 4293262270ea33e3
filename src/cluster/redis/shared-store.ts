/**
 * What the cluster needs of a shared store (Redis): commands, Lua scripts and pub/sub, each
 * answered within a bounded time or failed with StoreUnavailable. Bun's client sits behind it
 * (bun-redis-store.ts) so it can be replaced without touching its users.
 */
export interface SharedStore {
  /** One command; rejects with StoreUnavailable when the store does not answer in time. */
  send(command: string, args: (string | number)[]): Promise<unknown>;
  /** Runs a Lua script (EVALSHA, loading it once per connection on NOSCRIPT). */
  script(script: LuaScript, keys: string[], args: (string | number)[]): Promise<unknown>;
  publish(channel: string, message: string): Promise<void>;
  /**
   * Calls `onMessage` for every message on `channel`, across reconnections; `onGap` after a
   * reconnection (messages sent while disconnected are lost: the caller resynchronises).
   */
  subscribe(channel: string, onMessage: (message: string) => void, onGap: () => void): void;
  close(): void;
}

export class StoreUnavailable extends Error {
  override name = "StoreUnavailable";
}

/** A Lua script and its SHA-1 (EVALSHA's name for it). */
export class LuaScript {
  readonly sha1: string;
  constructor(readonly source: string) {
    this.sha1 = new Bun.CryptoHasher("sha1").update(source).digest("hex");
  }
}
