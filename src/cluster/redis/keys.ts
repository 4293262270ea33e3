/** The names of everything mehir keeps in Redis (one place, so they never drift apart). */
export const redisKeys = {
  /** Token bucket of a rate-limit id (`key:12`, `ip:203.0.113.7`, …): hash { tokens, at }. */
  bucket: (id: string) => `mehir:rl:${id}`,
  /** Calls counted for a quota subject in a UTC month (`2026-11`). */
  month: (subject: string, month: string) => `mehir:q:${subject}:${month}`,
  /** Calls counted for a quota subject on a UTC day (`2026-11-24`): what the primary writes back. */
  day: (subject: string, day: string) => `mehir:u:${subject}:${day}`,
  /** The verdict of a counted request, by its countedRequestHash (a retry of it on another replica is not counted again). */
  request: (countedHash: string) => `mehir:req:${countedHash}`,
  /** Set once the primary has loaded a month's usage from accounts.sqlite (absent after a data loss). */
  seeded: (month: string) => `mehir:seeded:${month}`,
  /** Active keys: hash, field = key hash, value = the key record as JSON. */
  keys: "mehir:keys",
  /** Set after the primary wrote every active key (absent after Redis lost its data: written again at once). */
  keysSynced: "mehir:keys:synced",
  /** Pub/sub channel: a key hash whose record changed or went (`*`: reload everything). */
  keysChanged: "mehir:keys:changed",
} as const;

/** Counters outlive their month by a few days (the primary writes them back meanwhile). */
export const COUNTER_TTL_S = 40 * 86_400;
/** How long a counted request id is remembered (a proxy's retry comes within seconds). */
export const REQUEST_TTL_S = 600;

/**
 * What Redis remembers a counted request by: a hash of whose token and calls it took (bucket,
 * quota subject) and the request (countedRequestId: method, path, query and request id). A
 * request id alone would let a verdict counted for one key, account or URL answer another.
 */
export function countedRequestHash(...scope: string[]): string {
  return Bun.SHA256.hash(scope.join("\n"), "hex") as string;
}
