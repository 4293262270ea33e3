/**
 * What a shared meter counts a request once by, so a reverse proxy's retry of it (on another
 * replica, with the same `X-Request-Id`) is not counted again: the request id with the request
 * itself, its method, path and query. The id alone would let one request's verdict answer another; the store adds
 * whose token and calls they are (src/cluster/redis/keys.ts `countedRequestHash`).
 * @example countedRequestId(new Request("http://x/api/v1/chains/?limit=2"), "req_1") // "GET /api/v1/chains/?limit=2 req_1"
 */
export function countedRequestId(request: Request, requestId: string): string {
  const url = request.url;
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const hash = url.indexOf("#", start);
  const target = start < 0 ? "/" : url.slice(start, hash >= 0 ? hash : url.length);
  return `${request.method} ${target} ${requestId}`;
}
