/**
 * Before a fetch run talks to any portal, every distinct portal endpoint (host and port, or the
 * proxy in front of it) is resolved and connected to once, all at the same time, within one
 * deadline. A portal whose endpoint cannot be reached is not tried at all: with no network a run
 * fails in seconds (instead of minutes of retries with backoff, per chain, per fallback) and says
 * why, once per cause ("cannot resolve url.publishedprices.co.il: no network?").
 */
import { lookup } from "node:dns/promises";
import { connect } from "node:net";
import { proxyFor } from "./http.ts";

/** Host and port the run must reach for a portal URL (the proxy's when one applies). */
export interface Endpoint {
  host: string;
  port: number;
  /** True when this is the proxy in front of the portal, not the portal itself. */
  proxy: boolean;
}

/**
 * Why an endpoint could not be reached, in parts so that one cause shared by many endpoints is
 * told once ("cannot resolve a, b and 18 more: no network?"): `${failure} ${subject}: ${reason}`.
 */
export interface Unreachable {
  failure: "cannot resolve" | "cannot connect to" | "cannot reach" | "no answer from";
  subject: string;
  reason: string;
}

/** Endpoint key (endpointKey) → why it is unreachable; null when it answered. */
export type Reachability = Map<string, Unreachable | null>;

/** @example describe({ failure: "cannot resolve", subject: "x.invalid", reason: "no network?" }) // { failure: "cannot resolve", subject: "x.invalid", reason: "no network?" } */
export const describe = (u: Unreachable) => `${u.failure} ${u.subject}: ${u.reason}`;

export const DEFAULT_PROBE_TIMEOUT_MS = 10_000;

const DEFAULT_PORTS: Record<string, number> = { "http:": 80, "https:": 443, "ftp:": 21, "ftps:": 21 };

/**
 * @example endpointOf("ftp://url.retail.publishedprices.co.il", {}) // { host: "url.retail.publishedprices.co.il", port: 21, proxy: false }
 */
export function endpointOf(url: string, env: Record<string, string | undefined>): Endpoint {
  const ftp = /^ftps?:/i.test(url);
  const proxy = ftp ? null : proxyFor(url, env);
  const target = new URL(proxy ?? url);
  const host = target.hostname.replace(/^\[(.*)\]$/, "$1");
  return { host, port: Number(target.port) || DEFAULT_PORTS[target.protocol] || 80, proxy: proxy !== null };
}

export const endpointKey = (e: Endpoint) => `${e.host}:${e.port}`;

/**
 * Resolves and connects to each distinct endpoint once, in parallel, each within `timeoutMs`.
 * The connection is closed as soon as it opens (nothing is sent).
 *
 * @example (await probeEndpoints([{ host: "x.invalid", port: 443, proxy: false }])).get("x.invalid:443") // { failure: "cannot resolve", subject: "x.invalid", reason: "no network?" }
 */
export async function probeEndpoints(endpoints: Endpoint[], timeoutMs = DEFAULT_PROBE_TIMEOUT_MS): Promise<Reachability> {
  const distinct = new Map(endpoints.map((e) => [endpointKey(e), e]));
  const results = await Promise.all([...distinct].map(async ([key, e]) => [key, await probe(e, timeoutMs)] as const));
  return new Map(results);
}

async function probe(endpoint: Endpoint, timeoutMs: number): Promise<Unreachable | null> {
  const subject = endpoint.proxy ? `the proxy ${endpoint.host}:${endpoint.port}` : `${endpoint.host}:${endpoint.port}`;
  const deadline = Date.now() + timeoutMs;
  let address: string;
  try {
    address = (await withDeadline(lookup(endpoint.host), timeoutMs)).address;
  } catch (error) {
    const host = endpoint.proxy ? `the proxy ${endpoint.host}` : endpoint.host;
    if (error instanceof DeadlineError) return { failure: "cannot resolve", subject: host, reason: `no answer within ${seconds(timeoutMs)}, no network?` };
    return { failure: "cannot resolve", subject: host, reason: "no network?" };
  }
  try {
    await openAndClose(address, endpoint.port, Math.max(1, deadline - Date.now()));
    return null;
  } catch (error) {
    if (error instanceof DeadlineError) return { failure: "no answer from", subject, reason: `nothing within ${seconds(timeoutMs)}, no network or a firewall?` };
    return connectFailure(subject, error);
  }
}

/** A failed connection, by its system error code. */
function connectFailure(subject: string, error: unknown): Unreachable {
  switch ((error as { code?: string }).code) {
    case "ECONNREFUSED":
      return { failure: "cannot connect to", subject, reason: "connection refused" };
    case "ENETUNREACH":
    case "EHOSTUNREACH":
    case "EADDRNOTAVAIL":
      return { failure: "cannot reach", subject, reason: "network unreachable, no network?" };
    case "ECONNRESET":
      return { failure: "cannot connect to", subject, reason: "connection reset" };
    default:
      return { failure: "cannot connect to", subject, reason: (error as Error).message ?? String(error) };
  }
}

/** Opens a TCP connection and closes it at once; rejects with DeadlineError after `ms`. */
function openAndClose(address: string, port: number, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: address, port });
    const settle = (error?: unknown) => {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve();
    };
    const timer = setTimeout(() => settle(new DeadlineError()), ms);
    socket.once("connect", () => settle());
    socket.once("error", (error) => settle(error));
  });
}

class DeadlineError extends Error {}

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError()), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

const seconds = (ms: number) => `${+(ms / 1000).toFixed(1)} s`;
