/**
 * The floor of the contract's per-request work on a cached `GET /api/v1/prices/?barcode=` answer,
 * written as one function on a bare `Bun.serve` (bench/lib/serve-bare.ts, path `/fused`; issue 46):
 * what any implementation on this runtime pays for such an answer, however its code is arranged.
 * Each step is the cheapest form of what the contract asks of every answer, with nothing the
 * service also does (route declarations, a second data set, hostile-input checks beyond the key's
 * format, error answers, stale answers, the shared store of a cluster):
 *
 * - the client's address for the log line (a `getpeername`), the request headers read
 *   (`x-api-key`, `accept-encoding`, `if-none-match`, `origin`, `x-request-id`);
 * - the key: its format, its SHA-256, the cache's lookup by hash, a constant-time comparison;
 * - a token bucket per key and the month's quota, counted in memory;
 * - a request id; the barcode read from the URL; the cached answer found by it (deflated once);
 * - `meta` (data time, source, request id, livemode, quota left) appended to the deflated data as
 *   a stored block with the gzip trailer, its CRC continued from the data's;
 * - the 12 headers on one Headers object updated in place (request id, rate and quota figures, ETag);
 * - the request log line (JSON, the time formatted once a millisecond) into a batch buffer
 *   written every 64 KB, and the request counted in a latency histogram.
 */
import { timingSafeEqual } from "node:crypto";
import { closeSync, openSync, writeSync } from "node:fs";
import { constants, crc32, deflateRawSync } from "node:zlib";

interface Key {
  digest: Uint8Array;
  prefix: string;
  tokens: number;
  refilledAt: number;
  quotaLeft: number;
}

interface CachedAnswer {
  deflated: Uint8Array;
  crc: number;
  length: number;
  etag: string;
}

const KEY_FORMAT = /^(sk_live_|sk_test_|pk_live_)[0-9A-Za-z]{32}$/;
const RATE_PER_MINUTE = 100_000_000;
const QUOTA = 1_000_000_000;
const GZIP_HEADER = new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);
const encoder = new TextEncoder();

const keys = new Map<string, Key>();
const answers = new Map<string, CachedAnswer>();
const headers = new Headers({
  "x-request-id": "",
  "x-ratelimit-limit": String(RATE_PER_MINUTE),
  "x-ratelimit-remaining": "",
  "x-ratelimit-reset": "",
  "x-quota-limit": String(QUOTA),
  "x-quota-remaining": "",
  etag: "",
  "last-modified": "Sun, 29 Nov 2026 12:34:17 GMT",
  "cache-control": "private, max-age=300",
  "content-type": "application/json;charset=utf-8",
  "content-encoding": "gzip",
  vary: "Accept-Encoding",
});
let lastEtag = "";
const out = new Uint8Array(256 * 1024);
const tail = new Uint8Array(1024);
const ID_PREFIX = `req_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
let counter = 0;
const histogram = new Float64Array(16);

// The log: a batch buffer written to /dev/null every 64 KB (the system call per batch, not per line).
const log = new Uint8Array(64 * 1024);
let logged = 0;
const logFd = openSync("/dev/null", "w");
let timeMs = 0;
let timeIso = "";

/** The cached answer of a barcode: made (deflated) at its first request, as the service's cache does. */
function answerOf(barcode: string, body: (barcode: string) => string): CachedAnswer {
  let cached = answers.get(barcode);
  if (!cached) {
    const head = encoder.encode(`{"data":${body(barcode)}`);
    const deflated = deflateRawSync(head, { level: 6, finishFlush: constants.Z_SYNC_FLUSH });
    cached = { deflated: new Uint8Array(deflated), crc: crc32(head), length: head.length, etag: `W/"1-${Bun.hash.wyhash(barcode).toString(16)}"` };
    answers.set(barcode, cached);
  }
  return cached;
}

/** The key presented, checked and found (a key seen for the first time is loaded, as the key cache does). */
function keyOf(presented: string | null): Key | null {
  if (presented === null || !KEY_FORMAT.test(presented)) return null;
  const digest = Bun.SHA256.hash(presented) as Uint8Array;
  const hash = digest.toHex();
  let key = keys.get(hash);
  if (!key) keys.set(hash, (key = { digest: Uint8Array.fromHex(hash), prefix: presented.slice(0, 12), tokens: RATE_PER_MINUTE, refilledAt: performance.now(), quotaLeft: QUOTA }));
  return timingSafeEqual(key.digest, digest) ? key : null;
}

function writeLogLine(line: string): void {
  if (logged + line.length * 3 > log.length) {
    writeSync(logFd, log, 0, logged);
    logged = 0;
  }
  logged += encoder.encodeInto(line, log.subarray(logged)).written;
}

/** `/fused?barcode=…`: the answer, or a 401 without a usable key. */
export function fusedAnswer(request: Request, address: string, body: (barcode: string) => string): Response {
  const started = performance.now();
  const ifNoneMatch = request.headers.get("if-none-match");
  const origin = request.headers.get("origin");
  const clientId = request.headers.get("x-request-id");
  const gzip = request.headers.get("accept-encoding")?.includes("gzip") ?? false;
  const key = keyOf(request.headers.get("x-api-key"));
  if (!key || ifNoneMatch !== null || origin !== null || clientId !== null || !gzip) return new Response(null, { status: 401 });

  const refill = (Math.max(0, started - key.refilledAt) * RATE_PER_MINUTE) / 60_000;
  key.tokens = Math.min(RATE_PER_MINUTE, key.tokens + refill) - 1;
  key.refilledAt = started;
  key.quotaLeft--;
  const id = ID_PREFIX + (++counter).toString(16).padStart(16, "0");

  const url = request.url;
  const at = url.indexOf("barcode=") + 8;
  const end = url.indexOf("&", at);
  const barcode = url.slice(at, end < 0 ? url.length : end);
  const answer = answerOf(barcode, body);

  const meta = `,"meta":{"data_updated_at":"2026-11-29T12:34:17+02:00","source":"bench","request_id":"${id}","livemode":true,"quota_remaining":${key.quotaLeft}}}`;
  const tailLength = encoder.encodeInto(meta, tail).written;
  out.set(GZIP_HEADER, 0);
  out.set(answer.deflated, 10);
  let p = 10 + answer.deflated.length;
  out[p++] = 1; // the final block, stored
  out[p++] = tailLength & 0xff;
  out[p++] = tailLength >>> 8;
  out[p++] = ~tailLength & 0xff;
  out[p++] = (~tailLength >>> 8) & 0xff;
  out.set(tail.subarray(0, tailLength), p);
  p += tailLength;
  const crc = crc32(tail.subarray(0, tailLength), answer.crc) >>> 0;
  const size = (answer.length + tailLength) >>> 0;
  out[p++] = crc & 0xff;
  out[p++] = (crc >>> 8) & 0xff;
  out[p++] = (crc >>> 16) & 0xff;
  out[p++] = crc >>> 24;
  out[p++] = size & 0xff;
  out[p++] = (size >>> 8) & 0xff;
  out[p++] = (size >>> 16) & 0xff;
  out[p++] = size >>> 24;

  headers.set("x-request-id", id);
  headers.set("x-ratelimit-remaining", String(Math.floor(key.tokens)));
  headers.set("x-ratelimit-reset", String(Math.ceil(((RATE_PER_MINUTE - key.tokens) * 60) / RATE_PER_MINUTE)));
  headers.set("x-quota-remaining", String(key.quotaLeft));
  if (answer.etag !== lastEtag) headers.set("etag", (lastEtag = answer.etag));
  const response = new Response(out.subarray(0, p), { headers });

  const now = Date.now();
  if (now !== timeMs) timeIso = new Date((timeMs = now)).toISOString();
  const ms = performance.now() - started;
  histogram[Math.min(15, Math.max(0, Math.ceil(Math.log2(ms * 1000))))]!++;
  writeLogLine(`{"time":"${timeIso}","level":"info","msg":"request","method":"GET","path":"/api/v1/prices","route":"/api/v1/prices","status":200,"duration_ms":${Math.round(ms * 100) / 100},"client":"${address}","request_id":"${id}","key":"${key.prefix}"}\n`);
  return response;
}

/** At the server's stop: the log's last batch written and its file closed. */
export function stopFusedLog(): void {
  if (logged > 0) writeSync(logFd, log, 0, logged);
  logged = 0;
  closeSync(logFd);
}
