import { Elysia } from "elysia";
import { ApiError } from "./errors/api-error.ts";
import { problemResponse } from "./http/encoding/problem.ts";
import { requestState } from "./http/request/request-state.ts";
import { toApiError } from "./http/encoding/api-error-of.ts";
import { RouteTable, undeclaredRoutes } from "./http/routes.ts";
import { FEATURES } from "./modules/index.ts";
import { declarationsOf, operationsOf, type Feature, type FeatureContext } from "./modules/feature.ts";
import { accessLayer, accessPlugin } from "./access/plugin.ts";
import { observability, RequestObserver } from "./http/observability/plugin.ts";
import { metricsEndpoint } from "./http/observability/metrics-endpoint.ts";
import { chainFetchMetrics } from "./ingest/sources/chain-metrics.ts";
import { databaseMetrics } from "./http/observability/database-metrics.ts";
import { fastLane } from "./http/fast-lane.ts";
import { expressAccess } from "./access/express-access.ts";
import type { PeerSource } from "./http/request/client-address.ts";
import type { MaybePromise } from "./lib/maybe-promise.ts";
import { fillAnswerMeta } from "./http/request/answer-meta.ts";
import { faviconRoute } from "./http/favicon.ts";
import type { Services } from "./services.ts";
import { primaryOnly } from "./cluster/primary-only.ts";
import { requestPath } from "./http/request/request-target.ts";
import { invalidTarget } from "./http/request/invalid-target.ts";
import { noRouteError } from "./http/no-route.ts";

/** The longest request target (path and query) the app answers: 8 KiB. */
export const MAX_URL_BYTES = 8 * 1024;

/** The length of a URL's path and query as sent (percent-encoded, so bytes). */
function requestTargetLength(url: string): number {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  return start < 0 ? 0 : url.length - start;
}

export interface AppOptions {
  /**
   * false: every route through Elysia's lifecycle, none answered by the fast lane (src/http/fast-lane.ts,
   * the routes features list as `fast`); the tests compare both ways.
   */
  directRoutes?: boolean;
  /**
   * false: the fast lane's routes always take its general steps, never the express lane
   * (src/http/express-lane.ts); the tests compare both ways.
   */
  expressLane?: boolean;
  /** The features served: FEATURES (src/modules/index.ts) unless a test gives others. */
  features?: readonly Feature[];
}

/** Refuses to start when a route under /api/ or /mcp declares nothing: who may call it would be unknown. */
function refuseUndeclared(registered: readonly { method: string; path: string }[], declarations: Parameters<typeof undeclaredRoutes>[1]): void {
  const undeclared = undeclaredRoutes(registered, declarations);
  if (undeclared.length === 0) return;
  const named = undeclared.map((r) => `${r.method} ${r.path}`).join(", ");
  throw new Error(
    `refusing to start: ${named} ${undeclared.length === 1 ? "is a route" : "are routes"} under /api/ or /mcp that no feature declares; ` +
      "list each among its feature's operations (or undocumented routes) in src/modules/<feature>/index.ts",
  );
}

/**
 * Builds the HTTP app on the services createServices built (everything long-lived is there).
 * Tests call `app.handle(new Request(...))`; main.ts calls `listen`. Hooks are registered before
 * the features' routes so they apply to every route; a route under /api/ or /mcp no feature
 * declares stops it here, at start. Stopping the app stops the services.
 */
export function createApp(services: Services, options: AppOptions = {}) {
  const deps = services;
  const { dataSets } = services;
  const features = options.features ?? FEATURES;
  const declarations = declarationsOf(features);
  // The one route matcher (access layer, request log, 405 Allow), with the rules each route declares.
  const routes: RouteTable = new RouteTable((): { method: string; path: string }[] => app.routes, declarations);
  const observer = new RequestObserver(routes, deps.settings.trustProxy);
  // GET /metrics, served by the server on its own listener (MEHIR_METRICS_ADDR), not on this app's port.
  // The collection's per-chain figures come from the data side; the endpoint only renders what it is given.
  if (deps.settings.metrics) {
    deps.metricsEndpoint = metricsEndpoint(deps, observer.metrics, [
      () => chainFetchMetrics(deps.dataSets.live.db.prices, deps.dataSets.live.now()),
      () => databaseMetrics({ prices: deps.dataSets.live.db.prices, accounts: deps.db.accounts }),
    ]);
  }
  const access = accessLayer({ access: deps.access, settings: deps.settings, now: deps.now, loadMeter: deps.pacing.loadMeter }, dataSets, routes);
  // The express lane (src/http/express-lane.ts) with in-process access state only; off with the fast lane.
  const express = options.expressLane === false ? null : expressAccess(deps.access, deps.settings, dataSets.live, deps.pacing.loadMeter);
  const lane = options.directRoutes === false ? null : fastLane({ access, observer, express, trustProxy: deps.settings.trustProxy, now: dataSets.live.now }, features.flatMap((f) => f.fast?.(services) ?? []));
  // Answers returned by an onRequest hook skip Elysia's after-response hooks: recorded here instead.
  const answeredBeforeRouting = (request: Request, response: Response) => observer.ended(request, undefined, { set: { status: response.status }, responseValue: response });
  /** A request whose target the service cannot place (request-target.ts): 400, recorded like any answer. */
  const refuseTarget = (request: Request): Response => {
    observer.started(request, (app.server ?? null) as PeerSource | null);
    const error = invalidTarget();
    const response = problemResponse(error, requestState(request).id);
    observer.ended(request, undefined, { set: { status: response.status }, error, responseValue: response });
    return response;
  };
  /**
   * What answers a request before Elysia's lifecycle: the refusal of a target with no path the
   * router could read, the fast lane's answer, or undefined for every other request (and an
   * over-long URL: see below).
   */
  const answerFirst = (request: Request): MaybePromise<Response> | undefined => {
    if (requestPath(request) === null) return refuseTarget(request);
    if (requestTargetLength(request.url) > MAX_URL_BYTES) return undefined;
    const server = (app.server ?? null) as PeerSource | null;
    return lane?.(request, server);
  };
  let held: MaybePromise<Response> | undefined;
  const handOver = (): MaybePromise<Response> => {
    const answered = held!;
    held = undefined;
    return answered;
  };
  // One router for every request, reading the path the access layer reads (request-target.ts):
  // Bun's native router (`systemRouter`) and static answers matched the raw request target while
  // `request.url` held the normalized one, and `standardHostname` assumed a Host of 4+ characters.
  const app = new Elysia({ name: "mehir", systemRouter: false, nativeStaticResponse: false, handler: { standardHostname: false } })
    // A target the router cannot place is refused, and GET /api/v1/prices/ and POST
    // /api/v1/prices/batch/ are answered, before Elysia makes the request's context and runs its
    // hooks (by the same steps: the fast lane, src/http/fast-lane.ts). Elysia calls this for every request
    // with the function that would answer it otherwise, and calls what it returns.
    .wrap((elysia, request) => {
      const answered = answerFirst(request);
      if (answered === undefined) return elysia;
      // Elysia calls the function returned here at once, for this request: the answer is handed
      // over through `held` by one function made once, not a closure made per request.
      held = answered;
      return handOver;
    })
    .onRequest(({ request, set }) => {
      const state = requestState(request, deps.settings.trustProxy);
      // Below the runtime's own limit (16 KiB of request line and headers), so an over-long URL
      // gets a problem+json answer with its request id, not a bare status from the server.
      if (requestTargetLength(request.url) > MAX_URL_BYTES) {
        const error = new ApiError("uri_too_long", `The URL is longer than ${MAX_URL_BYTES / 1024} KiB; send long lists in a POST body (e.g. /api/v1/prices/batch/).`);
        const response = problemResponse(error, state.id);
        observer.ended(request, undefined, { set: { status: response.status }, error, responseValue: response });
        return response;
      }
      set.headers["x-request-id"] = state.id;
    })
    .onError({ as: "global" }, ({ code, error, request }) => {
      const state = requestState(request);
      const apiError = code === "NOT_FOUND" ? noRouteError(routes, request.method, requestPath(request) ?? "/") : toApiError(code, error, state.id);
      return problemResponse(apiError, state.id, state.headers);
    })
    .onAfterHandle({ as: "global" }, ({ request, response, set }) => {
      Object.assign(set.headers, requestState(request).headers);
      if (response && typeof response === "object" && "data" in response && "meta" in response) {
        fillAnswerMeta(request, (response as { meta: Record<string, unknown> }).meta);
      }
    })
    .use(observability(observer))
    .use(primaryOnly(deps.settings.role))
    .use(accessPlugin(access, answeredBeforeRouting))
    .use(faviconRoute());
  // Each feature's routes, in FEATURES' order; MCP's tool calls are API requests made through the app itself, with the caller's key.
  const context: FeatureContext = { services, operations: operationsOf(features), handle: (request: Request): Promise<Response> => app.handle(request) };
  for (const feature of features) app.use(feature.routes(context));
  app.onStop(() => services.stop());
  refuseUndeclared(app.routes, declarations);
  return app;
}

export type App = ReturnType<typeof createApp>;
