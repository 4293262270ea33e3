import { Elysia } from "elysia";
import { requestState } from "../request/request-state.ts";
import { rememberedClient, requestClient, type PeerSource } from "../request/client-address.ts";
import { errorCode, errorReason, finalStatus, type EndedRequest } from "./final-status.ts";
import { HttpMetrics } from "./http-metrics.ts";
import type { RouteTable } from "../routes.ts";
import { logRequest } from "./request-log.ts";
import { isWarmUp } from "../warm-up.ts";
import { requestPath } from "../request/request-target.ts";
import { afterAnswer } from "../last-resort.ts";

/** What an onAfterResponse hook reads (Elysia sets `error` and `code` when the request failed). */
export interface AfterResponse {
  request: Request;
  route?: string;
  server?: unknown;
  set: { status?: unknown };
  error?: unknown;
  code?: unknown;
  responseValue?: unknown;
}
const UNMATCHED = "unmatched";
/** Longest path logged as it is; longer ones are cut (a log line stays bounded whatever a client sends). */
const PATH_LOGGED_CHARS = 200;

/** The path of an unmatched request for its log line: percent-encoded as sent, at most PATH_LOGGED_CHARS. */
export function loggedPath(pathname: string): string {
  return pathname.length <= PATH_LOGGED_CHARS ? pathname : `${pathname.slice(0, PATH_LOGGED_CHARS)}…`;
}
/** A URL without its query string (which may carry a key). */
function withoutQuery(url: string): string {
  const query = url.indexOf("?");
  return query < 0 ? url : url.slice(0, query);
}
/** Methods kept as metric labels; anything else a client invents is counted as OTHER (bounded label values). */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * What is recorded of every answered request: the metrics and its log line (see observability).
 * The app's hooks call `ended` after Elysia handed the answer over; a route answered outside
 * Elysia's lifecycle (the fast lane, src/http/fast-lane.ts) calls it with the same fields.
 */
export class RequestObserver {
  readonly metrics = new HttpMetrics();
  /** Whether another method is served on the request's path (a 405, not a 404): made once, not per request. */
  private readonly hasOtherMethods = (request: Request) => this.routes.methodsFor(requestPath(request) ?? "").length > 0;

  constructor(
    private readonly routes: RouteTable,
    private readonly trustProxy: boolean,
  ) {}

  /**
   * The request's start (its state made, if no hook made it yet: its duration counts from here) and
   * its peer's address, gone once the answer is sent: read (and remembered) now, for the log line.
   */
  started(request: Request, server: PeerSource | null): void {
    requestState(request, this.trustProxy);
    requestClient(request, server, this.trustProxy);
  }

  /** Records a request that ended: `routed` is the route pattern Elysia matched, if it routed the request. */
  ended(request: Request, routed: string | undefined, ctx: EndedRequest): void {
    if (isWarmUp(request)) return;
    const routes = this.routes;
    const state = requestState(request);
    const seconds = (performance.now() - state.startedAt) / 1000;
    // A refused target (no usable Host) has no path: it is logged as sent.
    const pathname = requestPath(request);
    let route: string;
    if (routed) route = routed.length > 1 && routed.endsWith("/") ? routed.slice(0, -1) : routed;
    else route = (pathname !== null && routes.match(request.method, pathname)?.path) || UNMATCHED;
    const status = finalStatus(ctx, request, this.hasOtherMethods);
    const code = errorCode(ctx);
    this.metrics.record({ method: METHODS.has(request.method) ? request.method : "OTHER", route, status, seconds, errorCode: code });
    const line: Parameters<typeof logRequest>[0] = {
      request_id: state.id,
      method: request.method,
      route,
      status,
      duration_ms: seconds * 1000,
      key_prefix: state.access?.keyPrefix ?? null,
      client: state.internal?.client ?? rememberedClient(request) ?? requestClient(request, null, this.trustProxy),
    };
    if (code) {
      line.error_code = code;
      const reason = errorReason(ctx);
      if (reason) line.error_reason = reason;
    }
    if (state.clientRequestId !== undefined) line.client_request_id = state.clientRequestId;
    if (state.internal) {
      line.via = state.internal.via;
      line.tool = state.internal.tool;
      line.parent_request_id = state.internal.parentRequestId;
    }
    // Which path nobody serves (a broken link, a probe): without its query string, which may carry a key.
    if (route === UNMATCHED) line.path = loggedPath(pathname ?? withoutQuery(request.url));
    logRequest(line);
  }
}

/**
 * Observability, registered globally before the modules: one structured log line per request
 * (request id, method, route pattern, status, duration, key prefix, client address) and the
 * request metrics, both recorded after the answer was handed over. The metrics are served on a
 * listener of their own (metrics-endpoint.ts), not on the API port.
 *
 * The observer's route table (routes.ts): answers given before routing (key refusals) are
 * counted under their route, and a 405 is told from a 404.
 */
export function observability(observer: RequestObserver) {
  // The hooks name the context fields they read: given the whole context, Elysia would parse
  // every request's cookies (and more) just in case.
  return new Elysia({ name: "observability" })
    .onRequest(({ request, server }) => observer.started(request, server as PeerSource | null))
    // No `server` here: naming it makes Elysia define a getter on every request's context, and the
    // peer's address was read (and remembered) in onRequest.
    .onAfterResponse({ as: "global" }, ({ request, route, set, error, code, responseValue }: AfterResponse) =>
      afterAnswer(request, "request log", () => observer.ended(request, route, { set, error, code, responseValue })),
    );
}
