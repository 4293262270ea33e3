/**
 * API key format: a kind prefix plus 32 random base62 characters. Keys are stored only as a
 * SHA-256 hash, with the prefix and the last 4 characters kept for display.
 */

export type KeyKind = "live" | "test" | "publishable";

export const KEY_PREFIX: Record<KeyKind, string> = { live: "sk_live_", test: "sk_test_", publishable: "pk_live_" };

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const RANDOM_LENGTH = 32;
const KEY_PATTERN = /^(sk_live_|sk_test_|pk_live_)[0-9A-Za-z]{32}$/;
/** Length of the stored display prefix: kind prefix + the first 4 random characters. */
export const DISPLAY_PREFIX_LENGTH = 12;

/** `length` uniformly random base62 characters (rejection sampling: no modulo bias). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** A new key of the given kind, e.g. `sk_live_3fQ…` (40 characters). */
export function generateKey(kind: KeyKind): string {
  return KEY_PREFIX[kind] + randomBase62(RANDOM_LENGTH);
}

/** The kind of a well-formed key, or null when the text is not a key at all. */
export function keyKindOf(text: string): KeyKind | null {
  // test, then the prefix read: every API request asks, and exec made a match array each time.
  if (!KEY_PATTERN.test(text)) return null;
  return text.startsWith("sk_live_") ? "live" : text.startsWith("sk_test_") ? "test" : "publishable";
}

/** True for anything presented as a secret key (`sk_…`), well-formed or not. */
export function looksSecret(text: string): boolean {
  return text.startsWith("sk_");
}

const SECRET_KEY_IN_TEXT = /sk_(?:live|test)_[0-9A-Za-z]{32}/;

/**
 * Whether any query parameter carries a whole secret key (`?api_key=sk_live_…`, `?q=…sk_test_…`, a bare `?sk_live_…`):
 * a key in a URL ends up in logs and histories, whatever the parameter's name. The URL is scanned
 * only when its text shows `sk_` (or an encoded `_`), so ordinary requests pay a few substring searches.
 * @example secretKeyInQuery(url, new URL(url).searchParams) // url = "https://x/api/v1/chains?api_key=sk_live_…" → true
 */
export function secretKeyInQuery(url: string, params: Iterable<readonly [string, string]>): boolean {
  if (!url.includes("sk_") && !url.includes("%5F") && !url.includes("%5f")) return false;
  for (const [name, value] of params) if (SECRET_KEY_IN_TEXT.test(value) || SECRET_KEY_IN_TEXT.test(name)) return true;
  return false;
}

/** Hex SHA-256 of the whole key: the only form a key is stored in. */
export function hashKey(key: string): string {
  return keyDigest(key).toHex();
}

/** SHA-256 of the whole key as bytes (hashKey is their hex; a constant-time comparison takes these). */
export function keyDigest(key: string): Uint8Array {
  // The one-shot hash: a CryptoHasher object per call cost 4× as much (every API request hashes its key).
  return Bun.SHA256.hash(key) as Uint8Array;
}

/** What is kept for display: `sk_live_AbC1` and `wxYz`. */
export function keyDisplay(key: string): { prefix: string; last4: string } {
  return { prefix: key.slice(0, DISPLAY_PREFIX_LENGTH), last4: key.slice(-4) };
}
