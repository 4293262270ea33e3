import { requestSlot } from "./request-slot.ts";

/**
 * The request's path as the app's one router reads it, parsed once and shared by everything that
 * decides on it: the access layer, the direct routes, the replica's refusals, the request log.
 *
 * The app routes every request through Elysia's own router (Bun's native router is off: it matched
 * the raw target while `request.url` held the normalized one, so `/a/p/../h` ran `/a/p/:id/h`
 * while everything else read `/a/h`). That router takes the path as
 * `url.substring(url.indexOf("/", 7), url.indexOf("?", start + 1))` of `request.url` (with
 * `standardHostname` off; on, it skipped 11 characters and a one-letter Host moved the path it
 * routed eleven characters past the path the access layer read). The expression below is that one,
 * on a URL that has passed the same checks, so the path an access decision is made on is the path
 * the router dispatches.
 *
 * A target is refused (null; the app answers 400 `invalid_request`) unless `request.url` is
 * `http://HOST/…` with a usable Host. Bun gives a bare path (`/api/v1/…`) when Host is missing
 * (HTTP/1.0), empty or unusable (`a/b`, `a@b`, spaces), and the server never terminates TLS
 * itself (a proxy does; X-Forwarded-Proto says so), so no other form reaches it from a client.
 */
export function targetPath(url: string): string | null {
  if (!url.startsWith("http://")) return null;
  const start = url.indexOf("/", 7);
  if (start < 0 || !HOST.test(url.slice(7, start))) return null;
  const query = url.indexOf("?", start + 1);
  return query === -1 ? url.substring(start) : url.substring(start, query);
}

/** A host name or IPv4 address, or a bracketed IPv6 address, with an optional port. */
const HOST = /^(?:[A-Za-z0-9_](?:[A-Za-z0-9._-]*)|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

/** null: the target was refused (see targetPath). */
const paths = requestSlot<string | null>("targetPath");

/** The request's path (targetPath of its URL, parsed on first use), or null for a refused target. */
export function requestPath(request: Request): string | null {
  let path = paths.get(request);
  if (path === undefined) paths.set(request, (path = targetPath(request.url)));
  return path;
}
