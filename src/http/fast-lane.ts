import type { PeerSource } from "./request/client-address.ts";
import type { RequestObserver } from "./observability/plugin.ts";
import type { EndedRequest } from "./observability/final-status.ts";
import { requestState } from "./request/request-state.ts";
import { requestPath } from "./request/request-target.ts";
import { fillAnswerMeta } from "./request/answer-meta.ts";
import { prebuiltAnswerBytes } from "./prebuilt/prebuilt-json.ts";
import { AnswerBuffer } from "./prebuilt/answer-buffer.ts";
import { ReusedHeaders } from "./prebuilt/reused-headers.ts";
import { problemResponse } from "./encoding/problem.ts";
import { toApiError } from "./encoding/api-error-of.ts";
import type { MaybePromise } from "../lib/maybe-promise.ts";
import type { RouteAudience } from "./routes.ts";
import { afterAnswer } from "./last-resort.ts";
import { expressLane, type Express, type ExpressAccess, type HeldLookup } from "./express-lane.ts";

/** A handler's answer: `data` a PrebuiltJson (or any JSON value), `meta` filled as every answer's is. */
export interface FastAnswer {
  data: unknown;
  meta: Record<string, unknown>;
}

/**
 * A route a feature has the fast lane answer (its `fast` list, src/modules/feature.ts): a static
 * path, matched with or without its one trailing slash, and the route's own handler — the same
 * function its Elysia route calls. The lane leaves a GET with `If-None-Match` to the lifecycle
 * (`*` is decided after the handler: src/access/plugin.ts, validators).
 */
export interface FastRoute {
  method: "GET" | "POST";
  /** The route's pattern as registered and declared (e.g. `/api/v1/prices`). */
  path: string;
  answer(request: Request): MaybePromise<FastAnswer>;
  /** A GET route's answers held ready, by query: its commonest requests then take the express lane (src/http/express-lane.ts). */
  held?: HeldLookup;
  /** Called when the express lane served an answer `held` found (the cache counts it as a hit). */
  heldServed?: () => void;
}

/**
 * The access layer's steps the lane runs, in the hooks' order (src/access/plugin.ts implements
 * them; declared here so the plumbing depends on no layer above it).
 */
export interface LaneAccess {
  /** Keys, rate limit and quota: undefined to go on, a Response (a 304) to send, or an error thrown. */
  guard(request: Request, server: PeerSource | null, known?: RouteAudience): MaybePromise<Response | undefined>;
  /** A route's audience and rules, matched as guard matches a request's. */
  routeOf(method: string, path: string): RouteAudience;
  /** Validators and Cache-Control of a successful answer; a 304 to send instead. */
  validators(request: Request, headers: Record<string, string>, status: number): Response | undefined;
  /** The quota's settlement after the answer. */
  settle(request: Request, ended: EndedRequest): void;
}

/** What the lane runs: the app's own access layer and request observer. */
export interface FastLaneDeps {
  access: LaneAccess;
  observer: RequestObserver;
  /** The access layer's express admission (null with a shared store: then no route has an express lane). */
  express: ExpressAccess | null;
  trustProxy: boolean;
  /** The live data's clock, for the express lane. */
  now: () => Date;
}

/** Answers a request before Elysia's lifecycle, or undefined (before any step ran) to leave it to the lifecycle. */
export type FastLane = (request: Request, server: PeerSource | null) => MaybePromise<Response> | undefined;

const ANSWERED: EndedRequest = { set: { status: 200 } };

/**
 * The fast lane: the hottest routes (`GET /api/v1/prices/`, `POST /api/v1/prices/batch/`)
 * answered in the app's `wrap`, before Elysia makes the request's context and runs its hooks —
 * where that lifecycle (context, hook chain, promises, header merging, an after-response task per
 * request) cost more than the answer itself. Each route runs the hooks' own steps, in the hooks'
 * order, with the same functions: the start recorded and the access layer's guard (keys, rate
 * limit, quota), the route's handler, the answer's meta, validators and encoding, then the
 * quota's settlement and the request's metrics and log line. Errors are rendered as the app's
 * error hook renders them. Every other request is left to the lifecycle before any step ran.
 * A GET route with held answers (`held`) first offers each request to its express lane
 * (express-lane.ts), which answers the commonest in one function or leaves it to these steps.
 */
export function fastLane(deps: FastLaneDeps, routes: readonly FastRoute[]): FastLane {
  // Per route, made once: its method, its path with and without the trailing slash, its steps.
  const lanes = routes.map((route) => ({ method: route.method, path: route.path, slashed: `${route.path}/`, steps: laneSteps(deps, route) }));
  return (request, server) => {
    for (let i = 0; i < lanes.length; i++) {
      const lane = lanes[i]!;
      if (request.method !== lane.method) continue;
      const path = requestPath(request);
      if (path !== lane.path && path !== lane.slashed) continue;
      if (lane.method === "GET" && request.headers.has("if-none-match")) return undefined;
      return lane.steps.expressOr(request, server);
    }
    return undefined;
  };
}

/** The steps of one route of the lane (`route.path`: its pattern, as metrics and the request log name it). */
function laneSteps(deps: FastLaneDeps, fast: FastRoute) {
  const { access, observer } = deps;
  const { method, path } = fast;
  // The route's audience and rules, matched once (the route table is read at the first request).
  let route: RouteAudience | undefined;
  // Answers of every size up to the buffer's limit are written into one buffer, reused: the
  // Response below copies them out at once (a fresh buffer per answer was memory the allocator
  // maps and frees again, request after request).
  const buffer = new AnswerBuffer(0);
  const allocate = (size: number) => buffer.take(size);
  // The answers' headers, mostly the same from one request to the next, updated in place.
  const reused = new ReusedHeaders();

  // The route's express lane, made at its first request (the route table is read then): for a GET
  // route with held answers, when access state is in process.
  let express: Express | null | undefined = fast.held && deps.express && method === "GET" ? undefined : null;

  function ended(request: Request, how: EndedRequest): void {
    afterAnswer(request, "request log", () => observer.ended(request, path, how));
    afterAnswer(request, "quota settlement", () => access.settle(request, how));
  }

  /** The problem+json answer of an error, as the app's onError hook makes it, recorded as Elysia records it. */
  function failed(request: Request, error: unknown): Response {
    const state = requestState(request);
    const code = (error as { code?: unknown } | null)?.code ?? "UNKNOWN";
    const response = problemResponse(toApiError(code as string, error, state.id), state.id, state.headers);
    ended(request, { set: { status: response.status }, error, code, responseValue: response });
    return response;
  }

  /** The 200 answer of a handler's value (`data` a PrebuiltJson), or the error making it raised. */
  function answered(request: Request, value: FastAnswer): Response {
    let response: Response;
    try {
      const state = requestState(request);
      // The headers in the order the hooks set them: request id, access figures, validators, encoding.
      const headers: Record<string, string> = { "x-request-id": state.id };
      Object.assign(headers, state.headers);
      fillAnswerMeta(request, value.meta);
      access.validators(request, headers, 200);
      const bytes = prebuiltAnswerBytes(request, value, headers, allocate)!;
      response = new Response(bytes as Uint8Array<ArrayBuffer>, { status: 200, headers: reused.of(headers) });
    } catch (error) {
      return failed(request, error);
    }
    ended(request, ANSWERED);
    return response;
  }

  /** The answer once the guard let the request through: at once for a handler answering at once. */
  function answer(request: Request): MaybePromise<Response> {
    let value: MaybePromise<FastAnswer>;
    try {
      value = fast.answer(request);
    } catch (error) {
      return failed(request, error);
    }
    if (value instanceof Promise) return answeredLater(request, value);
    return answered(request, value);
  }

  /** answer's end for a handler answering later: apart, so answer itself makes no closure. */
  function answeredLater(request: Request, value: Promise<FastAnswer>): Promise<Response> {
    return value.then((v) => answered(request, v), (error: unknown) => failed(request, error));
  }

  /** Records the start, runs the guard, then the answer unless the guard answered (or refused) first. */
  function admit(request: Request, server: PeerSource | null): MaybePromise<Response> {
    observer.started(request, server);
    let admitted: MaybePromise<Response | undefined>;
    try {
      admitted = access.guard(request, server, (route ??= access.routeOf(method, path)));
    } catch (error) {
      return failed(request, error);
    }
    if (admitted instanceof Promise) return admittedLater(request, admitted);
    return admitted ?? answer(request);
  }

  /** admit's end when the guard answers later (a shared store): apart, so admit itself makes no closure. */
  function admittedLater(request: Request, admitted: Promise<Response | undefined>): Promise<Response> {
    return admitted.then((early) => early ?? answer(request), (error: unknown) => failed(request, error));
  }

  /**
   * The route's express lane: only for an operation of a plan's audience whose calls count one each
   * (not by the work a body asks for) on data that is not an account's own.
   */
  function expressFor({ audience, route: matched }: RouteAudience): Express | null {
    const rules = matched?.operation;
    if ((audience !== "free" && audience !== "basic" && audience !== "pro") || rules?.accountData || rules?.itemsPerCall !== undefined) return null;
    const lane = { access: deps.express!, observer, trustProxy: deps.trustProxy, now: deps.now };
    return expressLane(lane, { path, audience, held: fast.held!, served: fast.heldServed ?? (() => {}) });
  }

  /** The express lane's answer when it takes the request, else admit's. */
  function expressOr(request: Request, server: PeerSource | null): MaybePromise<Response> {
    if (express === undefined) express = expressFor((route ??= access.routeOf(method, path)));
    if (express !== null) {
      let answered: Response | undefined;
      try {
        answered = express(request, server);
      } catch (error) {
        return failed(request, error);
      }
      if (answered !== undefined) return answered;
    }
    return admit(request, server);
  }

  return { expressOr };
}
