import ipaddr from "ipaddr.js";
import { lookup } from "node:dns";
import { isIP } from "node:net";

/**
 * Where webhooks may go (SSRF guard). Only public unicast addresses: loopback, private
 * (10/8, 172.16/12, 192.168/16, fc00::/7), link-local (169.254/16 — cloud metadata — and
 * fe80::/10), carrier-grade NAT, multicast, reserved and unspecified ranges are refused, also
 * inside IPv4-mapped IPv6; IPv6 forms that carry an IPv4 address (::/96 "IPv4-compatible", NAT64,
 * 6to4, Teredo, and ISATAP interface ids around a non-public IPv4) are refused too. The check runs on the URL's literal address, on every address the name
 * resolves to (at subscription and again at each delivery, on the very addresses the connection
 * then uses: no second lookup a DNS rebinding could answer differently), and redirects are never
 * followed (a 3xx answer is a failed attempt).
 * `https` only, port 0 refused; with MEHIR_WEBHOOK_ALLOW_LOOPBACK=on, loopback targets are allowed
 * too, over https or — to loopback only — http (for tests and local development).
 */
export interface UrlPolicy {
  allowLoopback: boolean;
}

export class RefusedTarget extends Error {
  override name = "RefusedTarget";
}

export const MAX_URL_LENGTH = 2048;

const HTTP_LOOPBACK_ONLY = "http is for loopback addresses only; use https";

/** ::/96, "IPv4-compatible" IPv6 (deprecated): a kernel may route ::a.b.c.d as the IPv4 a.b.c.d. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR("::/96");

/**
 * A literal address (as node:net's isIP reads it: dotted-quad IPv4 or IPv6), an IPv4-mapped IPv6
 * one as its IPv4; null for anything else.
 */
function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const family = isIP(address);
  if (family === 4) return ipaddr.IPv4.parse(address);
  if (family !== 6) return null;
  // ipaddr.js reads a dotted tail as IPv4-mapped ("::127.0.0.1" → ::ffff:7f00:1); the WHATWG URL
  // parser writes it out in hex as it is (::7f00:1), as Node's DNS answers are written.
  let hex: string;
  try {
    hex = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
  const v6 = ipaddr.IPv6.parse(hex);
  return v6.isIPv4MappedAddress() ? v6.toIPv4Address() : v6;
}

/** The IPv4 address an ISATAP interface id (…:0000:5efe:a.b.c.d or …:0200:5efe:a.b.c.d) carries. */
function isatapIpv4(v6: ipaddr.IPv6): ipaddr.IPv4 | null {
  const p = v6.parts;
  if ((p[4] !== 0x0000 && p[4] !== 0x0200) || p[5] !== 0x5efe) return null;
  return new ipaddr.IPv4([p[6]! >> 8, p[6]! & 0xff, p[7]! >> 8, p[7]! & 0xff]);
}

function rangeAllowed(address: ipaddr.IPv4 | ipaddr.IPv6, policy: UrlPolicy): boolean {
  const range = address.range();
  return range === "unicast" || (policy.allowLoopback && range === "loopback");
}

/** True when a connection to `address` is allowed. */
export function addressAllowed(address: string, policy: UrlPolicy): boolean {
  const parsed = parseAddress(address);
  if (!parsed) return false;
  if (parsed.kind() === "ipv6") {
    const v6 = parsed as ipaddr.IPv6;
    // ::1 is loopback (allowed with the setting), :: is unspecified (refused by its range).
    if (v6.match(IPV4_COMPATIBLE) && v6.range() !== "loopback") return false;
    const embedded = isatapIpv4(v6);
    if (embedded && embedded.range() !== "unicast") return false;
  }
  return rangeAllowed(parsed, policy);
}

/** Whether `address` is a loopback address (the only kind plain http may go to). */
function isLoopback(address: string): boolean {
  return parseAddress(address)?.range() === "loopback";
}

function describe(address: string): string {
  const parsed = parseAddress(address);
  if (!parsed) return address;
  if (parsed.kind() === "ipv4") return `${address} (${parsed.range()})`;
  const v6 = parsed as ipaddr.IPv6;
  if (v6.match(IPV4_COMPATIBLE) && v6.range() === "unicast") return `${address} (IPv4-compatible)`;
  const embedded = isatapIpv4(v6);
  return `${address} (${embedded && embedded.range() !== "unicast" ? `ISATAP around ${embedded} (${embedded.range()})` : v6.range()})`;
}

/** The URL's host without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

/**
 * Checks a webhook URL's form and, when the host is an address, the address. Throws
 * RefusedTarget with a reason a client can act on.
 */
export function checkUrlForm(text: string, policy: UrlPolicy): URL {
  if (text.length > MAX_URL_LENGTH) throw new RefusedTarget(`the URL is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RefusedTarget("not an absolute URL");
  }
  if (url.protocol !== "https:" && !(policy.allowLoopback && url.protocol === "http:")) {
    throw new RefusedTarget(policy.allowLoopback ? "use https (or http to a loopback address)" : "webhook URLs must use https");
  }
  if (url.username || url.password) throw new RefusedTarget("credentials in the URL are not allowed; authenticate the request with its signature");
  if (url.hash) throw new RefusedTarget("a webhook URL has no #fragment");
  if (url.port === "0") throw new RefusedTarget("port 0 is not a port to send to");
  const host = hostOf(url);
  if (isIP(host) && !addressAllowed(host, policy)) throw new RefusedTarget(`${describe(host)} is not a public address`);
  if (url.protocol === "http:" && isIP(host) && !isLoopback(host)) throw new RefusedTarget(HTTP_LOOPBACK_ONLY);
  return url;
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/**
 * Every address `host` resolves to, when all are allowed; throws RefusedTarget when any is not
 * (a name with one public and one private address is refused whole) or it does not resolve.
 * `loopbackOnly` (a plain http URL): every address must be loopback.
 */
export function resolveAllowed(host: string, policy: UrlPolicy, loopbackOnly = false): Promise<ResolvedAddress[]> {
  if (isIP(host)) {
    if (!addressAllowed(host, policy)) return Promise.reject(new RefusedTarget(`${describe(host)} is not a public address`));
    if (loopbackOnly && !isLoopback(host)) return Promise.reject(new RefusedTarget(HTTP_LOOPBACK_ONLY));
    return Promise.resolve([{ address: host, family: isIP(host) }]);
  }
  return new Promise((resolve, reject) => {
    lookup(host, { all: true }, (error, addresses) => {
      if (error || addresses.length === 0) return reject(new RefusedTarget(`${host} does not resolve`));
      const refused = addresses.find((a) => !addressAllowed(a.address, policy));
      if (refused) return reject(new RefusedTarget(`${host} resolves to ${describe(refused.address)}, not a public address`));
      const notLoopback = loopbackOnly && addresses.find((a) => !isLoopback(a.address));
      if (notLoopback) return reject(new RefusedTarget(`${host} resolves to ${notLoopback.address}: ${HTTP_LOOPBACK_ONLY}`));
      resolve(addresses);
    });
  });
}

/**
 * A URL's target, checked as at delivery: its form, and every address its host resolves to.
 * @example await checkTarget("https://hooks.example.com/mehir", { allowLoopback: false })
 */
export async function checkTarget(text: string, policy: UrlPolicy): Promise<{ url: URL; addresses: ResolvedAddress[] }> {
  const url = checkUrlForm(text, policy);
  return { url, addresses: await resolveAllowed(hostOf(url), policy, url.protocol === "http:") };
}
