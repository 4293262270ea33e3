// Request hashes by epoch, then method and URL: clients repeat the same URLs, and hashing one (URL
// parsing, sorting the query) cost more than the rest of a cached answer's tag handling. Keyed on
// the URL string as it is (a GET's; another method's is prefixed with it): no key text is made per
// request, and a tag asked twice (If-None-Match before the handler, ETag after) costs two lookups.
const HASHES_KEPT = 20_000;
const hashes = new Map<string, Map<string, string>>();
let hashesHeld = 0;

/**
 * Weak ETags for API answers: the data version plus a short hash of the canonical request
 * (method, path without trailing slash, query sorted, the publishable `key` left out). Volatile
 * `meta` fields (quota_remaining, request_id) are not part of it, hence weak. `epoch`, hashed
 * with the request, is the answers' epoch within the data version (answerEpoch in
 * answer-epoch.ts: answers also change when a promotion starts or ends or the day moves on).
 *
 * @example etagFor(42, new Request("http://x/api/v1/prices/?barcode=1")) // 'W/"42-…"'
 * @example etagFor(42, request, "20261122.17") // 'W/"42-…"', another hash once the epoch moves
 */
export function etagFor(dataVersion: number, request: Request, epoch = ""): string {
  const method = request.method === "HEAD" ? "GET" : request.method;
  const url = request.url;
  const key = method === "GET" ? url : `${method} ${url}`;
  let byUrl = hashes.get(epoch);
  let hash = byUrl?.get(key);
  if (hash === undefined) {
    hash = requestHash(method, url, epoch);
    if (hashesHeld >= HASHES_KEPT) {
      hashes.clear();
      hashesHeld = 0;
      byUrl = undefined;
    }
    if (!byUrl) hashes.set(epoch, (byUrl = new Map()));
    byUrl.set(key, hash);
    hashesHeld++;
  }
  return `W/"${dataVersion}-${hash}"`;
}

function requestHash(method: string, href: string, epoch: string): string {
  const url = new URL(href);
  const path = url.pathname.length > 1 && url.pathname.endsWith("/") ? url.pathname.slice(0, -1) : url.pathname;
  const params = [...url.searchParams].filter(([name]) => name !== "key");
  params.sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  const canonical = `${method} ${path}?${new URLSearchParams(params).toString()}${epoch ? `#${epoch}` : ""}`;
  // A fast 64-bit hash (wyhash) is enough: the tag only has to change with the request, and a
  // crafted collision could at most earn its sender a 304 for its own request.
  return BigInt.asUintN(64, BigInt(Bun.hash.wyhash(canonical))).toString(16).padStart(16, "0");
}

/** Whether an If-None-Match header names this ETag (weak comparison, as RFC 9110 asks for GET). */
export function etagMatches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  const wanted = opaque(etag);
  return ifNoneMatch.split(",").some((tag) => opaque(tag) === wanted);
}

let lastDate: { iso: string; http: string | null } = { iso: "", http: null };

/** An ISO time as an HTTP date (Last-Modified), or null. */
export function httpDate(iso: string | null): string | null {
  if (!iso) return null;
  // Every answer of a data version carries the same date: formatted once.
  if (iso === lastDate.iso) return lastDate.http;
  const time = Date.parse(iso);
  lastDate = { iso, http: Number.isNaN(time) ? null : new Date(time).toUTCString() };
  return lastDate.http;
}
