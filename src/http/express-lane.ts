import type { PeerSource } from "./request/client-address.ts";
import { clientAddress } from "./request/client-address.ts";
import type { RequestObserver } from "./observability/plugin.ts";
import { logRequest, type RequestLine } from "./observability/request-log.ts";
import { isWarmUp } from "./warm-up.ts";
import { isSaneRequestId, nextRequestId } from "./request/request-state.ts";
import { GZIP_FROM_BYTES, JSON_CONTENT_TYPE, type PrebuiltJson } from "./prebuilt/prebuilt-json.ts";
import { acceptsGzip, gzipWithTail } from "./prebuilt/gzip-answer.ts";
import { AnswerBuffer } from "./prebuilt/answer-buffer.ts";
import { httpDate } from "../serving/etag.ts";
import type { DataSnapshot } from "../data/snapshot-source.ts";
import type { Audience } from "../openapi/operation.ts";
import { log } from "../lib/log.ts";

/** What a request admitted by `admit` is counted as: valid until the next call (one object, reused). */
export interface ExpressVerdict {
  /** The key's display prefix (`sk_live_AbC1`), for the log line. */
  keyPrefix: string;
  rateLimit: number;
  rateRemaining: number;
  rateReset: number;
  quotaLimit: number;
  quotaRemaining: number;
  /** The call counted, given back by `refund` if the answer fails (a 5xx counts nothing, as in the general steps). */
  reservation: unknown;
}

/** What the express lane asks of the access layer (src/access/express-access.ts implements it). */
export interface ExpressAccess {
  /**
   * The verdict for a request presenting `presented` on a route whose declared audience is
   * `audience`, or null when this request is not one the express lane answers — then nothing was
   * taken or counted, and the access layer's own steps (plugin.ts `guard`) decide it, refusals
   * included. Admitted: a live secret key the route's plan allows, a rate-limit token taken and
   * one call of the account's month counted, as `guard` and the meter take them. `date`: the
   * request's time (the quota's month and day); `at`: its performance.now() (the bucket's clock).
   */
  admit(presented: string, audience: Audience, date: Date, at: number): ExpressVerdict | null;
  /** The ETag of an answer on `snapshot` of the live data at `at` (epoch ms), as the access layer's validators make it. */
  etag(request: Request, snapshot: DataSnapshot, at: number): string;
  /** Gives an admitted request's call back: its answer failed (a 500), and 5xx answers are not counted. */
  refund(verdict: ExpressVerdict): void;
  /** The live answers' epoch at `at` (epoch ms), which their ETags follow besides the data version (answer-epoch.ts). */
  epoch(at: number): string;
  /** The Cache-Control of an answer to a secret key. */
  readonly cacheControl: string;
}

/** An answer the route holds ready (computed and cached), for the express lane. */
export interface HeldAnswer {
  json: PrebuiltJson;
  snapshot: DataSnapshot;
}

/**
 * A fast route's held answers, by its query: the answer for the query string (the URL's text after
 * `?`), or undefined for any query the route's handler must read itself (another shape, a value it
 * would refuse, an answer not computed yet). Computes nothing, changes nothing.
 */
export type HeldLookup = (query: string, at: number) => HeldAnswer | undefined;

/** What the express lane runs: the access layer's express steps, the request observer, the proxy setting, the clock. */
export interface ExpressDeps {
  access: ExpressAccess;
  observer: RequestObserver;
  trustProxy: boolean;
  /** The live data's clock (answers' validity, the answers' epoch, the quota's month). */
  now: () => Date;
}

/** Answers a request, or undefined (before anything was taken or recorded) to leave it to the fast lane's steps. */
export type Express = (request: Request, server: PeerSource | null) => Response | undefined;

const encoder = new TextEncoder();

/**
 * The express lane of one GET route of the fast lane (issue 46: `GET /api/v1/prices/?barcode=`):
 * the commonest request of the busiest route — a live secret key, an answer held in the cache,
 * gzip — answered in one function, where the fast lane's general steps (src/http/fast-lane.ts)
 * pass the request through the access layer's hooks, the route's handler, the answer's meta,
 * validators and encoding, and the observer, each step general enough for every case: ≈ 7 µs of
 * a request's 20 under load went to that generality (bench/RESULTS.md, "Where the time goes").
 *
 * It decides nothing of its own. Which requests it takes is checked first, with no side effect:
 * the route's held answer for this exact query (`held`), no `If-None-Match`, no `Origin`, a key in
 * `X-API-Key`, gzip accepted for an answer worth compressing, a Last-Modified date. Then the
 * access layer's express admission (src/access/express-access.ts) — the same key cache, bucket
 * and quota ledger as its guard, at the route's declared audience — takes the token and counts the
 * call, or declines before taking anything. Anything declined goes on to the general steps, which
 * answer it as they always did (refusals, test keys, the sandbox, 304s, stale answers, CORS).
 *
 * What it sends is what the general steps send for the same request (test/http/express-lane.test.ts
 * compares them and the lifecycle's: status, headers, data and meta but the request id and the
 * figures that move per request): the same 12 headers in the same order,
 * `{"data":…,"meta":{data_updated_at, source, request_id, livemode, quota_remaining}}` gzipped
 * from the same deflated data, the same request log line and metrics, the same call and token counted.
 */
export function expressLane(deps: ExpressDeps, route: { path: string; audience: Audience; held: HeldLookup; served: () => void }): Express {
  const { access, observer, trustProxy, now } = deps;
  const { path, audience, held, served } = route;
  const recorded = observer.metrics.recorder("GET", path, 200);
  const buffer = new AnswerBuffer(0);
  const allocate = (size: number) => buffer.take(size);
  // The answer's headers in the general steps' order (request id, access figures, validators,
  // encoding), one object updated in place: the Response copies them when made.
  const headers = new Headers({
    "x-request-id": "",
    "x-ratelimit-limit": "",
    "x-ratelimit-remaining": "",
    "x-ratelimit-reset": "",
    "x-quota-limit": "",
    "x-quota-remaining": "",
    etag: "",
    "last-modified": "",
    "cache-control": access.cacheControl,
    vary: "Accept-Encoding",
    "content-type": JSON_CONTENT_TYPE,
    "content-encoding": "gzip",
  });
  const last = { id: "", rateLimit: "", rateRemaining: "", rateReset: "", quotaLimit: "", quotaRemaining: "", etag: "", lastModified: "" };

  // The answer's `meta`, as the general steps write it (`{"data_updated_at":…,"source":…,
  // "request_id":…,"livemode":true,"quota_remaining":…}`), written as bytes after `,"meta":`: its
  // head made once per data version, the request id (printable ASCII: ours, or a sane one a
  // trusted proxy set) and the count copied in.
  let metaOf: DataSnapshot | undefined;
  let metaHead = new Uint8Array(0);
  const metaTail = encoder.encode('","livemode":true,"quota_remaining":');
  let tail = new Uint8Array(1024);
  function metaBytes(snapshot: DataSnapshot, id: string, quotaRemaining: number): Uint8Array {
    if (snapshot !== metaOf) {
      metaOf = snapshot;
      metaHead = encoder.encode(`,"meta":{"data_updated_at":${JSON.stringify(snapshot.updatedAt)},"source":${JSON.stringify(snapshot.source)},"request_id":"`);
      if (tail.length < metaHead.length + 512) tail = new Uint8Array(metaHead.length + 512);
    }
    tail.set(metaHead, 0);
    let at = metaHead.length;
    for (let i = 0; i < id.length; i++) tail[at++] = id.charCodeAt(i);
    tail.set(metaTail, at);
    at += metaTail.length;
    const count = String(quotaRemaining);
    for (let i = 0; i < count.length; i++) tail[at++] = count.charCodeAt(i);
    tail[at++] = 125; // }
    tail[at++] = 125;
    return tail.subarray(0, at);
  }

  // Each held answer's ETag for the query it was last asked with: the tag depends on the data
  // version, the answers' epoch and the request (its path without the trailing slash, its query),
  // and every request taking this lane has the route's one path and a query of one parameter — so
  // an answer asked again with the same query in the same epoch has the same tag.
  const etags = new WeakMap<PrebuiltJson, { query: string; epoch: string; version: number; etag: string }>();
  function etagOf(request: Request, answered: HeldAnswer, query: string, at: number): string {
    const epoch = access.epoch(at);
    const version = answered.snapshot.version;
    const known = etags.get(answered.json);
    if (known !== undefined && known.query === query && known.epoch === epoch && known.version === version) return known.etag;
    const etag = access.etag(request, answered.snapshot, at);
    etags.set(answered.json, { query, epoch, version, etag });
    return etag;
  }

  function answer(request: Request, server: PeerSource | null, answered: HeldAnswer, query: string, presented: string, startedAt: number, date: Date): Response | undefined {
    const lastModified = httpDate(answered.snapshot.updatedAt);
    if (lastModified === null) return undefined;
    const verdict = access.admit(presented, audience, date, startedAt);
    if (verdict === null) return undefined;
    // Admitted: from here the request is answered here, as the general steps would answer it.
    // An error making the answer gives its call back (a 500 is not counted) and goes to the fast
    // lane, which answers it as the app's error hook does.
    try {
      return answerAdmitted(request, server, answered, query, verdict, startedAt, date, lastModified);
    } catch (error) {
      access.refund(verdict);
      throw error;
    }
  }

  function answerAdmitted(request: Request, server: PeerSource | null, answered: HeldAnswer, query: string, verdict: ExpressVerdict, startedAt: number, date: Date, lastModified: string): Response {
    const { json, snapshot } = answered;
    served();
    const given = request.headers.get("x-request-id");
    const sane = isSaneRequestId(given);
    const id = sane && trustProxy ? given : nextRequestId();
    const client = clientAddress(request, server, trustProxy);

    const bytes = gzipWithTail(json.compressedHead(), metaBytes(snapshot, id, verdict.quotaRemaining), allocate);

    // Only the values that changed are set (a busy key's bucket and reset often read the same).
    if (id !== last.id) headers.set("x-request-id", (last.id = id));
    const rateLimit = String(verdict.rateLimit);
    if (rateLimit !== last.rateLimit) headers.set("x-ratelimit-limit", (last.rateLimit = rateLimit));
    const rateRemaining = String(verdict.rateRemaining);
    if (rateRemaining !== last.rateRemaining) headers.set("x-ratelimit-remaining", (last.rateRemaining = rateRemaining));
    const rateReset = String(verdict.rateReset);
    if (rateReset !== last.rateReset) headers.set("x-ratelimit-reset", (last.rateReset = rateReset));
    const quotaLimit = String(verdict.quotaLimit);
    if (quotaLimit !== last.quotaLimit) headers.set("x-quota-limit", (last.quotaLimit = quotaLimit));
    const quotaRemaining = String(Math.max(0, verdict.quotaRemaining));
    if (quotaRemaining !== last.quotaRemaining) headers.set("x-quota-remaining", (last.quotaRemaining = quotaRemaining));
    const etag = etagOf(request, answered, query, date.getTime());
    if (etag !== last.etag) headers.set("etag", (last.etag = etag));
    if (lastModified !== last.lastModified) headers.set("last-modified", (last.lastModified = lastModified));
    const response = new Response(bytes as Uint8Array<ArrayBuffer>, { status: 200, headers });

    if (isWarmUp(request)) return response;
    // The answer is made: a failure to record it is logged, never the answer's (afterAnswer's rule).
    try {
      const seconds = (performance.now() - startedAt) / 1000;
      recorded(seconds);
      const line: RequestLine = { request_id: id, method: "GET", route: path, status: 200, duration_ms: seconds * 1000, key_prefix: verdict.keyPrefix, client };
      if (sane && !trustProxy) line.client_request_id = given;
      logRequest(line);
    } catch (error) {
      log.error("after-answer step failed (the server keeps serving)", { request_id: id, step: "request log", error: String((error as Error | null)?.stack ?? error) });
    }
    return response;
  }

  // The fast lane left requests with If-None-Match to its general steps before this runs.
  return (request, server) => {
    const startedAt = performance.now();
    const url = request.url;
    const q = url.indexOf("?");
    if (q < 0) return undefined;
    const date = now();
    const query = url.slice(q + 1);
    const answered = held(query, date.getTime());
    if (answered === undefined || answered.json.size < GZIP_FROM_BYTES) return undefined;
    const h = request.headers;
    if (h.get("origin") !== null || !acceptsGzip(h.get("accept-encoding"))) return undefined;
    const presented = h.get("x-api-key")?.trim();
    if (!presented) return undefined;
    return answer(request, server, answered, query, presented, startedAt, date);
  };
}
