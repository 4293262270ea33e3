import ipaddr from "ipaddr.js";
import { lookup } from "node:dns";
import { isIP } from "node:net";

/**
 * Where webhooks may go (SSRF guard). Only public unicast addresses: loopback, private
 * (10/8, 172.16/12, 192.168/16, fc00::/7), link-local (169.254/16 — cloud metadata — and
 * fe80::/10), carrier-grade NAT, multicast, reserved and unspecified ranges are refused, also
 * inside IPv4-mapped IPv6. The check runs on the URL's literal address, on every address the name
 * resolves to (at subscription and again at each delivery, on the very addresses the connection
 * then uses: no second lookup a DNS rebinding could answer differently), and redirects are never
 * followed (a 3xx answer is a failed attempt).
 * `https` only; with MEHIR_WEBHOOK_ALLOW_LOOPBACK=on, loopback targets are allowed too, over http
 * or https (for tests and local development).
 */
export interface UrlPolicy {
  allowLoopback: boolean;
}

export class RefusedTarget extends Error {
  override name = "RefusedTarget";
}

export const MAX_URL_LENGTH = 2048;

/** True when a connection to `address` is allowed. */
export function addressAllowed(address: string, policy: UrlPolicy): boolean {
  if (!ipaddr.isValid(address)) return false;
  const range = ipaddr.process(address).range();
  return range === "unicast" || (policy.allowLoopback && range === "loopback");
}

function describe(address: string): string {
  return ipaddr.isValid(address) ? `${address} (${ipaddr.process(address).range()})` : address;
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
  const host = hostOf(url);
  if (isIP(host) && !addressAllowed(host, policy)) throw new RefusedTarget(`${describe(host)} is not a public address`);
  return url;
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/**
 * Every address `host` resolves to, when all are allowed; throws RefusedTarget when any is not
 * (a name with one public and one private address is refused whole) or it does not resolve.
 */
export function resolveAllowed(host: string, policy: UrlPolicy): Promise<ResolvedAddress[]> {
  if (isIP(host)) {
    if (!addressAllowed(host, policy)) return Promise.reject(new RefusedTarget(`${describe(host)} is not a public address`));
    return Promise.resolve([{ address: host, family: isIP(host) }]);
  }
  return new Promise((resolve, reject) => {
    lookup(host, { all: true }, (error, addresses) => {
      if (error || addresses.length === 0) return reject(new RefusedTarget(`${host} does not resolve`));
      const refused = addresses.find((a) => !addressAllowed(a.address, policy));
      if (refused) return reject(new RefusedTarget(`${host} resolves to ${describe(refused.address)}, not a public address`));
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
  return { url, addresses: await resolveAllowed(hostOf(url), policy) };
}
