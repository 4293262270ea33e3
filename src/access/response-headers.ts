import type { RateVerdict } from "./rate-limiter.ts";

/** X-RateLimit-* of a bucket verdict, set on `headers` (a request's own: no object made per request). */
export function rateHeaders(verdict: RateVerdict, headers: Record<string, string>): void {
  headers["x-ratelimit-limit"] = String(verdict.limit);
  headers["x-ratelimit-remaining"] = String(verdict.remaining);
  headers["x-ratelimit-reset"] = String(verdict.reset);
}

/** X-Quota-* of a secret key's account, set on `headers`. */
export function quotaHeaders(limit: number, remaining: number, headers: Record<string, string>): void {
  headers["x-quota-limit"] = String(limit);
  headers["x-quota-remaining"] = String(Math.max(0, remaining));
}

/** Secret endpoints: a client may reuse an answer for five minutes (data changes daily). */
export const SECRET_CACHE_CONTROL = "private, max-age=300";
/** Must equal the widget module's own header for widget data (sent on its 304s here). */
export const WIDGET_CACHE_CONTROL = "public, max-age=300, stale-while-revalidate=3600";
