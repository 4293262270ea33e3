/** Allowed origins of publishable keys: `scheme://host[:port]`, nothing else. */

export const MAX_ORIGINS = 20;

/**
 * The canonical origin of a user-typed value, or null when it is not a plain http(s) origin
 * (a path, query, fragment or credentials make it invalid; a lone trailing slash is fine).
 *
 * @example parseOrigin("https://Shop.Example:443/") // "https://shop.example"
 */
export function parseOrigin(text: string): string | null {
  const value = text.trim();
  if (value === "" || value.length > 200) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  if (url.username || url.password || url.search || url.hash || url.pathname !== "/") return null;
  if (/[?#@]/.test(value.replace(/^[a-z]+:\/\//i, ""))) return null;
  return url.origin;
}

export type OriginsResult = { ok: true; origins: string[] } | { ok: false; invalid: string };

/** Parses a list (one per line, or separated by commas/spaces); duplicates are dropped. */
export function parseOriginList(values: string[]): OriginsResult {
  const origins: string[] = [];
  for (const raw of values.flatMap((v) => v.split(/[\s,]+/))) {
    if (raw.trim() === "") continue;
    const origin = parseOrigin(raw);
    if (!origin) return { ok: false, invalid: raw.slice(0, 200) };
    if (!origins.includes(origin)) origins.push(origin);
  }
  if (origins.length > MAX_ORIGINS) return { ok: false, invalid: `more than ${MAX_ORIGINS} origins` };
  return { ok: true, origins };
}

/**
 * In a key's allowed origins: the service's own origin, whatever host it was reached at. Only the
 * service's own widget-demo key carries it (parseOrigin never yields it, so no user can set it).
 */
export const SELF_ORIGIN = "self";

/**
 * The origin of the page a browser request comes from: its Origin header, or, for a same-origin
 * request (a browser sends no Origin header on a same-origin GET, but says `Sec-Fetch-Site:
 * same-origin`), the service's own origin. Null for a call without either (a server's).
 */
export function pageOrigin(request: Request, ownOrigin: () => string): string | null {
  const origin = request.headers.get("origin");
  if (origin !== null) return origin;
  return request.headers.get("sec-fetch-site") === "same-origin" ? ownOrigin() : null;
}

/** The host[:port] of an origin or URL prefix: "https://a.example:8443" → "a.example:8443". */
function authority(origin: string): string {
  const start = origin.indexOf("//");
  return start < 0 ? "" : origin.slice(start + 2).toLowerCase();
}

/**
 * Whether a request's Origin header may use a key with these allowed origins (empty = any; no
 * header = server-side call). `ownOrigin` (the service's origin as this request reached it) is
 * asked only for a key that allows SELF_ORIGIN; the host must match (the scheme may differ
 * behind a TLS proxy).
 */
export function originAllowed(allowed: readonly string[], origin: string | null, ownOrigin?: () => string): boolean {
  if (allowed.length === 0 || origin === null) return true;
  const lower = origin.toLowerCase();
  if (allowed.includes(lower)) return true;
  if (!ownOrigin || !allowed.includes(SELF_ORIGIN)) return false;
  const host = authority(lower);
  return host !== "" && host === authority(ownOrigin());
}
