/**
 * The scheme and host clients reach the service at, for links in answers (image URLs): the
 * request's own, or with the trust-proxy setting the reverse proxy's `X-Forwarded-Proto` and
 * `X-Forwarded-Host` (a host that is not a plain name[:port] is ignored).
 *
 * @example publicOrigin(new Request("http://127.0.0.1:8080/x"), false) // "http://127.0.0.1:8080"
 */
export function publicOrigin(request: Request, trustProxy: boolean): string {
  const href = request.url;
  // scheme://host[:port] ends at the first "/" after "//" (no URL object on the hot path).
  const slash = href.indexOf("/", href.indexOf("//") + 2);
  const own = slash < 0 ? href : href.slice(0, slash);
  if (!trustProxy) return own;
  const proto = request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase();
  const host = request.headers.get("x-forwarded-host")?.split(",")[0]?.trim();
  const ownScheme = own.slice(0, own.indexOf(":"));
  const ownHost = own.slice(own.indexOf("//") + 2);
  const scheme = proto === "https" || proto === "http" ? proto : ownScheme;
  return `${scheme}://${host && /^[A-Za-z0-9.-]+(:\d{1,5})?$/.test(host) ? host : ownHost}`;
}
