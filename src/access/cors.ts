import type { AccessContext } from "../http/request/request-state.ts";

/** CORS for /widget/v1/* files: any page may load the widget. */
export const ASSET_CORS: Record<string, string> = {
  "access-control-allow-origin": "*",
  "cross-origin-resource-policy": "cross-origin",
};

const EXPOSED = "ETag, Retry-After, X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset";

/**
 * CORS headers of a widget-data answer. Data goes to an origin only when the access layer
 * accepted a publishable key for it (it checks the key's allowed origins). An error answer
 * carries no data, so any origin may read it: the widget can then tell an invalid key or an
 * unknown product from a network failure.
 */
export function dataCors(origin: string | null, access: AccessContext | null, isError: boolean): Record<string, string> {
  const headers: Record<string, string> = { vary: "Origin" };
  if (!origin) return headers;
  if (isError) headers["access-control-allow-origin"] = "*";
  else if (access?.keyKind === "publishable") headers["access-control-allow-origin"] = origin;
  else return headers;
  headers["access-control-expose-headers"] = EXPOSED;
  return headers;
}

/** The answer to a CORS preflight on the data endpoint (a browser sends one only when the key is in X-API-Key). */
export function preflightHeaders(origin: string | null): Record<string, string> {
  return {
    vary: "Origin",
    "access-control-allow-origin": origin ?? "*",
    "access-control-allow-methods": "GET, OPTIONS",
    "access-control-allow-headers": "X-API-Key, If-None-Match",
    "access-control-max-age": "86400",
  };
}
