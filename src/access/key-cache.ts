import type { Database } from "bun:sqlite";
import { timingSafeEqual } from "node:crypto";
import type { Plan } from "../accounts/plans.ts";
import { keyDigest, keyKindOf, type KeyKind } from "../accounts/key-format.ts";
import type { ActiveKey, KeyLookup } from "./key-lookup.ts";

interface Row {
  id: number;
  account_id: number;
  kind: KeyKind;
  prefix: string;
  hash: string;
  plan: Plan;
  allowed_origins: string;
}

const SELECT = `SELECT k.id, k.account_id, k.kind, k.prefix, k.hash, a.plan, k.allowed_origins
  FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.revoked_at IS NULL`;

/**
 * The in-process KeyLookup: active keys by hash, in memory. Changes committed by another connection (the operator CLI in
 * another process) show in `PRAGMA data_version`, checked at most every `pollMs` on lookup, which
 * reloads the table. Writers on this process's own connection call `invalidate()`. A key missing
 * from the cache is looked up once in the database (keys just inserted on this connection).
 */
export class KeyCache implements KeyLookup {
  private byHash = new Map<string, Cached>();
  private version = -1;
  private checkedAt = -Infinity;
  private readonly dataVersion;
  private readonly all;
  private readonly one;

  constructor(
    db: Database,
    private readonly options: { pollMs?: number; clock?: () => number } = {},
  ) {
    this.dataVersion = db.prepare("PRAGMA data_version");
    this.all = db.prepare(SELECT);
    this.one = db.prepare(`${SELECT} AND k.hash = ?`);
  }

  /**
   * The active key for the presented text, or null (malformed, unknown or revoked). `at`: the
   * caller's reading of performance.now() (one clock read a request), unless the cache has a clock of its own.
   */
  lookup(presented: string, at?: number): ActiveKey | null {
    if (!keyKindOf(presented)) return null;
    this.refreshIfChanged(at);
    const digest = keyDigest(presented);
    const hash = digest.toHex();
    let cached = this.byHash.get(hash);
    if (!cached) {
      const row = this.one.get(hash) as Row | null;
      if (!row) return null;
      cached = toCached(row);
      this.byHash.set(hash, cached);
    }
    // Map lookup found it by hash already; compare anyway in constant time (defence in depth).
    return timingSafeEqual(cached.digest, digest) ? cached.key : null;
  }

  /** Forget everything; the next lookup reloads (call after revoking or editing on this connection). */
  invalidate(): void {
    this.version = -1;
    this.checkedAt = -Infinity;
  }

  private refreshIfChanged(at: number | undefined): void {
    const now = this.options.clock ? this.options.clock() : (at ?? performance.now());
    if (now - this.checkedAt < (this.options.pollMs ?? 250) && this.version !== -1) return;
    this.checkedAt = now;
    const version = (this.dataVersion.get() as { data_version: number }).data_version;
    if (version === this.version) return;
    this.version = version;
    this.byHash = new Map((this.all.all() as Row[]).map((row) => [row.hash, toCached(row)]));
  }
}

/** A cached key with its stored hash as bytes, decoded once (not on every comparison). */
interface Cached {
  key: ActiveKey;
  digest: Uint8Array;
}

function toCached(row: Row): Cached {
  return { key: toActive(row), digest: Uint8Array.fromHex(row.hash) };
}

function toActive(row: Row): ActiveKey {
  return {
    id: row.id,
    accountId: row.account_id,
    kind: row.kind,
    prefix: row.prefix,
    hash: row.hash,
    plan: row.plan,
    allowedOrigins: JSON.parse(row.allowed_origins) as string[],
  };
}
