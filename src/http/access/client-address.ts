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

/** Whether the client reached us over TLS (directly, or per X-Forwarded-Proto behind a trusted proxy). */
export function cameOverHttps(request: Request, trustProxy: boolean): boolean {
  if (new URL(request.url).protocol === "https:") return true;
  return trustProxy && request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase() === "https";
}
