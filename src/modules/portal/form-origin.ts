import { publicOrigin } from "../../http/request/public-origin.ts";

/** The host[:port] of an origin, lower-cased: "https://A.example:8443" → "a.example:8443". */
function hostOf(origin: string): string {
  const start = origin.indexOf("//");
  return start < 0 ? "" : origin.slice(start + 2).toLowerCase();
}

/**
 * Whether a portal form post may come from the portal's own pages — a check beside the CSRF
 * token, never instead of it (audit I5). Refused: a browser saying the post is `cross-site` or
 * `same-site` (Sec-Fetch-Site), and an Origin header naming another host than the one the request
 * reached (with MEHIR_TRUST_PROXY, the forwarded host), or `null` (a sandboxed or local page).
 * Only hosts are compared: behind a TLS proxy that does not say so, the browser's https origin
 * reaches mehir as http. A post with neither header (older browsers, scripts) passes on its token.
 */
export function fromOwnPages(request: Request, trustProxy: boolean): boolean {
  const site = request.headers.get("sec-fetch-site");
  if (site === "cross-site" || site === "same-site") return false;
  const origin = request.headers.get("origin");
  if (origin === null) return true;
  const host = hostOf(origin);
  return host !== "" && (host === hostOf(publicOrigin(request, false)) || host === hostOf(publicOrigin(request, trustProxy)));
}
