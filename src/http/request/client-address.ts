import { requestSlot } from "./request-slot.ts";

/** The client's address: the socket's peer, or with `trustProxy` the first X-Forwarded-For entry. */

export interface PeerSource {
  requestIP(request: Request): { address: string } | null;
}

export function clientAddress(request: Request, server: PeerSource | null | undefined, trustProxy: boolean): string {
  if (trustProxy) {
    const first = request.headers.get("x-forwarded-for")?.split(",")[0]?.trim();
    if (first) return first.slice(0, 64);
  }
  // app.handle() in tests has no server: all such requests share one address.
  return server?.requestIP(request)?.address ?? "unknown";
}

const remembered = requestSlot<string>("clientAddress");

/**
 * The client's address, read once per request and remembered: the socket's peer is known only
 * while the request is in flight — once the answer is sent, `requestIP` returns null (so a
 * request log written after the response must use the address read before it).
 */
export function requestClient(request: Request, server: PeerSource | null | undefined, trustProxy: boolean): string {
  let address = remembered.get(request);
  if (address === undefined) remembered.set(request, (address = clientAddress(request, server, trustProxy)));
  return address;
}

/** The address remembered by requestClient, if it was read. */
export function rememberedClient(request: Request): string | undefined {
  return remembered.get(request);
}

/**
 * Whether the client reached us over TLS: per X-Forwarded-Proto behind a trusted proxy (the server
 * never terminates TLS itself; it answers http://HOST/… targets only, request-target.ts).
 */
export function cameOverHttps(request: Request, trustProxy: boolean): boolean {
  return trustProxy && request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase() === "https";
}
