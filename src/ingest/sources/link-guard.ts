import { isIP } from "node:net";
import { addressAllowed, hostOf } from "../../alerts/url-guard.ts";
import { HttpError, redact } from "./http.ts";

/**
 * A link a portal handed out (Bina's SPath, Super-Pharm's `{href}`) that mehir will not follow:
 * to another site than the portal's, to a private, loopback or link-local address, or not
 * http(s). A compromised or misconfigured portal must not make the fetcher reach into the
 * operator's own network (SSRF). Not retried: the file counts as failed, the error says why.
 */
export class RefusedLinkError extends HttpError {
  override name = "RefusedLinkError";
  constructor(message: string) {
    super(message, null, false);
  }
}

// Second-level domains under a country code (`prices.co.il` is one site per `x.co.il`).
const SECOND_LEVEL = new Set(["co", "org", "net", "gov", "ac", "muni", "com", "k12", "idf"]);

/**
 * The site of a host: its registrable part (`kingstore.binaprojects.com` → `binaprojects.com`,
 * `prices.super-pharm.co.il` → `super-pharm.co.il`); an address is its own site.
 * @example siteOf("url.retail.publishedprices.co.il") // "publishedprices.co.il"
 */
export function siteOf(host: string): string {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "");
  if (isIP(h)) return h;
  const labels = h.split(".");
  const keep = labels.length >= 3 && labels[labels.length - 1]!.length === 2 && SECOND_LEVEL.has(labels[labels.length - 2]!) ? 3 : 2;
  return labels.slice(-keep).join(".");
}

/** Whether a host is a name or address outside the public internet (literal addresses and `localhost`). */
function isPrivateHost(host: string): boolean {
  if (/^localhost$|\.localhost$/i.test(host)) return true;
  return isIP(host) !== 0 && !addressAllowed(host, { allowLoopback: false });
}

/**
 * Resolves a portal-supplied `link` against `relativeTo` and checks it may be followed from the
 * portal at `portalUrl`: http(s), on the portal's own site, and not to a private or loopback
 * address — unless that address is the portal's own host (an operator who points a chain at a
 * mirror on such an address with MEHIR_SOURCES_FILE allows it for that portal; the registry
 * holds public names only). Throws RefusedLinkError otherwise.
 *
 * @example checkPortalLink("/files/a.gz", "https://prices.super-pharm.co.il/Download/a.gz", "https://prices.super-pharm.co.il/") // "https://prices.super-pharm.co.il/files/a.gz"
 */
export function checkPortalLink(link: string, relativeTo: string, portalUrl: string): string {
  let url: URL;
  try {
    url = new URL(link, relativeTo);
  } catch {
    throw new RefusedLinkError(`the portal's link ${JSON.stringify(link.slice(0, 80))} is not a URL`);
  }
  const portalHost = hostOf(new URL(portalUrl)).toLowerCase();
  const host = hostOf(url).toLowerCase();
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new RefusedLinkError(`the portal's link ${redact(url.toString())} is not http(s): refused`);
  if (host !== portalHost && isPrivateHost(host)) throw new RefusedLinkError(`the portal's link ${redact(url.toString())} goes to a private or loopback address: refused`);
  if (siteOf(host) !== siteOf(portalHost)) throw new RefusedLinkError(`the portal's link ${redact(url.toString())} goes to another site than the portal's (${portalHost}): refused`);
  return url.toString();
}

/**
 * The address a passive FTP data connection goes to: the one the server's PASV reply gives when
 * it is public, or the very address of the control connection; a private or loopback one
 * otherwise (servers behind NAT announce their inside address) is never connected to — the
 * control host is used instead.
 * @example passiveAddress("url.retail.publishedprices.co.il", "10.0.0.1", "203.0.113.7") // "url.retail.publishedprices.co.il"
 */
export function passiveAddress(controlHost: string, given: string, controlPeer: string | undefined): string {
  const peer = controlPeer?.replace(/^::ffff:/i, "");
  if (given === peer || given === controlHost) return given;
  return isPrivateHost(given) ? controlHost : given;
}
