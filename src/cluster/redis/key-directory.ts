import type { Database } from "bun:sqlite";
import { timingSafeEqual } from "node:crypto";
import type { ActiveKey, KeyLookup } from "../../access/key-lookup.ts";
import { hashKey, keyKindOf } from "../../accounts/key-format.ts";
import { redisKeys } from "./keys.ts";
import type { SharedStore } from "./shared-store.ts";
import { orUnavailable } from "./unavailable.ts";

type Log = (msg: string, fields?: Record<string, unknown>) => void;

const ACTIVE_KEYS = `SELECT k.id, k.account_id, k.kind, k.prefix, k.hash, a.plan, k.allowed_origins
  FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.revoked_at IS NULL`;

interface Row {
  id: number;
  account_id: number;
  kind: ActiveKey["kind"];
  prefix: string;
  hash: string;
  plan: ActiveKey["plan"];
  allowed_origins: string;
}

const record = (row: Row): ActiveKey => ({ id: row.id, accountId: row.account_id, kind: row.kind, prefix: row.prefix, hash: row.hash, plan: row.plan, allowedOrigins: JSON.parse(row.allowed_origins) as string[] });

/**
 * The primary's side of the keys: mirrors the active keys of accounts.sqlite (the system of
 * record) into Redis — key hashes and records only, never a key — and announces each change on
 * the keys channel, so replicas drop what they cached. `PRAGMA data_version` is checked every
 * `pollMs` (a revocation by the portal or by `mehir keys` in another process shows there); every
 * `resyncMs` the whole set is written again, which also restores it after Redis lost its data.
 */
export class KeyMirror {
  private timer: ReturnType<typeof setInterval> | null = null;
  private version = -1;
  private published = new Map<string, string>();
  private lastFull = -Infinity;
  private running: Promise<void> | null = null;
  private readonly dataVersion;
  private readonly active;

  constructor(
    db: Database,
    private readonly store: SharedStore,
    private readonly options: { pollMs?: number; resyncMs?: number; error?: Log } = {},
  ) {
    this.dataVersion = db.prepare("PRAGMA data_version");
    this.active = db.prepare(ACTIVE_KEYS);
  }

  start(): this {
    this.timer = setInterval(() => void this.sync(), this.options.pollMs ?? 250);
    this.timer.unref?.();
    void this.sync();
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** One pass (the timer's; tests call it): publishes changes since the last, or everything when due. */
  sync(): Promise<void> {
    this.running ??= this.syncOnce()
      .catch((error) => (this.options.error ?? (() => {}))("keys: mirror to Redis failed", { error: String((error as Error).message) }))
      .finally(() => (this.running = null));
    return this.running;
  }

  private async syncOnce(): Promise<void> {
    const version = (this.dataVersion.get() as { data_version: number }).data_version;
    // A full pass when due, and at once when Redis lost its data (the marker is gone).
    const full = performance.now() - this.lastFull >= (this.options.resyncMs ?? 30_000) || Number(await this.store.send("EXISTS", [redisKeys.keysSynced])) !== 1;
    if (version === this.version && !full) return;
    const current = new Map((this.active.all() as Row[]).map((row) => [row.hash, JSON.stringify(record(row))]));
    // A full pass compares with what Redis holds (it may have lost it, or hold keys revoked meanwhile).
    const known = full ? ((await this.store.send("HKEYS", [redisKeys.keys])) as string[]) : [...this.published.keys()];
    const gone = known.filter((hash) => !current.has(hash));
    const changed = [...current].filter(([hash, json]) => full || this.published.get(hash) !== json);
    if (gone.length > 0) await this.store.send("HDEL", [redisKeys.keys, ...gone]);
    if (changed.length > 0) await this.store.send("HSET", [redisKeys.keys, ...changed.flat()]);
    // Revocations one by one; after a full pass replicas drop everything ("*": also keys they
    // cached as unknown while Redis had lost them).
    for (const hash of gone) await this.store.publish(redisKeys.keysChanged, hash);
    if (full) {
      await this.store.send("SET", [redisKeys.keysSynced, "1"]);
      await this.store.publish(redisKeys.keysChanged, "*");
      this.lastFull = performance.now();
    } else for (const [hash] of changed) await this.store.publish(redisKeys.keysChanged, hash);
    this.published = current;
    this.version = version;
  }
}

/**
 * A replica's key lookup: records read from Redis, cached here for `ttlMs` at most (the backstop)
 * and dropped at once when the primary announces a change (pub/sub: within a second of a
 * revocation). After a gap in the subscription everything cached is dropped.
 */
export class SharedKeyLookup implements KeyLookup {
  private readonly cache = new Map<string, { key: ActiveKey | null; at: number }>();

  constructor(
    private readonly store: SharedStore,
    private readonly options: { ttlMs?: number; clock?: () => number } = {},
  ) {
    store.subscribe(
      redisKeys.keysChanged,
      (hash) => (hash === "*" ? this.cache.clear() : this.cache.delete(hash)),
      () => this.cache.clear(),
    );
  }

  /** Forget everything cached (the next lookups read Redis). */
  invalidate(): void {
    this.cache.clear();
  }

  /** The active key for the presented text, or null (malformed, unknown or revoked); 503 `service_unavailable` when Redis does not answer. */
  async lookup(presented: string): Promise<ActiveKey | null> {
    return orUnavailable(() => this.find(presented));
  }

  private async find(presented: string): Promise<ActiveKey | null> {
    if (!keyKindOf(presented)) return null;
    const hash = hashKey(presented);
    const now = this.options.clock?.() ?? performance.now();
    let entry = this.cache.get(hash);
    if (!entry || now - entry.at > (this.options.ttlMs ?? 30_000)) {
      const json = (await this.store.send("HGET", [redisKeys.keys, hash])) as string | null;
      entry = { key: json ? (JSON.parse(json) as ActiveKey) : null, at: now };
      this.cache.set(hash, entry);
    }
    const key = entry.key;
    // Found by hash already; compared again in constant time (defence in depth, as KeyCache).
    return key && timingSafeEqual(Buffer.from(key.hash, "hex"), Buffer.from(hash, "hex")) ? key : null;
  }
}
