import type { MaybePromise } from "../lib/maybe-promise.ts";
import type { KeyKind } from "../accounts/key-format.ts";
import type { Plan } from "../accounts/plans.ts";

/** An active key as the access layer needs it on every request (the secret itself is never kept, only its hash). */
export interface ActiveKey {
  id: number;
  accountId: number;
  kind: KeyKind;
  prefix: string;
  /** SHA-256 of the key, hex. */
  hash: string;
  plan: Plan;
  allowedOrigins: string[];
}

/**
 * Finds the active key a request presents. In process: KeyCache (the accounts database, cached,
 * following other processes' changes). A shared store (key records by hash, revocations
 * published to every replica) may answer later: `lookup` may return a promise.
 */
export interface KeyLookup {
  /** The active key for the presented text, or null (malformed, unknown or revoked). */
  lookup(presented: string): MaybePromise<ActiveKey | null>;
  /** Forget cached keys: call after revoking or editing keys on this process's connection. */
  invalidate(): void;
}
