import { Elysia } from "elysia";
import { ApiError, problemResponse } from "./http/encoding/problem.ts";
import { requestState } from "./http/request/request-state.ts";
import { toApiError } from "./http/encoding/api-error-of.ts";
import { RouteTable } from "./http/routes.ts";
import { OPERATIONS } from "./http/openapi/operations.ts";
import { healthModule } from "./modules/health/index.ts";
import { chainsModule } from "./modules/chains/index.ts";
import { docsModule } from "./modules/docs/index.ts";
import { pricesModule } from "./modules/prices/index.ts";
import { batchModule } from "./modules/batch/index.ts";
import { storesModule } from "./modules/stores/index.ts";
import { exportsModule } from "./modules/exports/index.ts";
import { catalogModule } from "./modules/catalog/index.ts";
import { promosModule } from "./modules/promos/index.ts";
import { basketModule } from "./modules/basket/index.ts";
import { widgetModule } from "./modules/widget/index.ts";
import { searchModule } from "./modules/search/index.ts";
import { accessLayer, accessPlugin } from "./http/access/plugin.ts";
import { observability, RequestObserver } from "./http/observability/plugin.ts";
import { directPrices } from "./modules/prices/direct.ts";
import { directBatch } from "./modules/batch/direct.ts";
import type { PeerSource } from "./http/access/client-address.ts";
import type { MaybePromise } from "./maybe-promise.ts";
import { portalModule } from "./portal/index.ts";
import { alertsModule } from "./modules/alerts/index.ts";
import { mcpModule } from "./modules/mcp/index.ts";
import { fillAnswerMeta } from "./http/answers/answer-meta.ts";
import { faviconRoute } from "./http/favicon.ts";
import type { Services } from "./services.ts";
import { primaryOnly } from "./cluster/primary-only.ts";

/** The longest request target (path and query) the app answers: 8 KiB. */
export const MAX_URL_BYTES = 8 * 1024;

/** The length of a URL's path and query as sent (percent-encoded, so bytes). */
function requestTargetLength(url: string): number {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  return start < 0 ? 0 : url.length - start;
}

export interface AppOptions {
  /**
   * false: every route through Elysia's lifecycle, none answered directly (src/modules/prices/direct.ts,
   * src/modules/batch/direct.ts);
   * the tests compare both ways.
   */
  directRoutes?: boolean;
}

/**
 * Builds the HTTP app on the services createServices built (everything long-lived is there).
 * Tests call `app.handle(new Request(...))`; main.ts calls `listen`. Hooks are registered before
 * the modules so they apply to every route; stopping the app stops the services.
 */
export function createApp(services: Services, options: AppOptions = {}) {
  const deps = services;
  const { dataSets } = services;
  // The one route matcher (access layer, request log, 405 Allow), with the rules each route declares.
  const routes: RouteTable = new RouteTable((): { method: string; path: string }[] => app.routes, OPERATIONS);
  const observer = new RequestObserver(routes, deps.settings.trustProxy);
  const access = accessLayer({ access: deps.access, settings: deps.settings, now: deps.now, loadMeter: deps.pacing.loadMeter }, dataSets, routes);
  const direct = options.directRoutes === false ? null : directPrices({ access, observer });
  const batch = options.directRoutes === false ? null : directBatch({ access, observer, services: deps });
  // Answers returned by an onRequest hook skip Elysia's after-response hooks: recorded here instead.
  const answeredBeforeRouting = (request: Request, response: Response) => observer.ended(request, undefined, { set: { status: response.status }, responseValue: response });
  /** The direct routes' answer, or undefined for every other request (and an over-long URL: see below). */
  const directAnswer = (request: Request): MaybePromise<Response> | undefined => {
    if (requestTargetLength(request.url) > MAX_URL_BYTES) return undefined;
    const server = (app.server ?? null) as PeerSource | null;
    return direct?.(request, server) ?? batch?.(request, server);
  };
  let held: MaybePromise<Response> | undefined;
  const handOver = (): MaybePromise<Response> => {
    const answered = held!;
    held = undefined;
    return answered;
  };
  const app = new Elysia({ name: "mehir" })
    // GET /api/v1/prices/ and POST /api/v1/prices/batch/ answered before Elysia makes the request's
    // context and runs its hooks (by the same steps, see src/http/direct-route.ts). Elysia calls this
    // for every request with the function that would answer it otherwise, and calls what it returns.
    .wrap((elysia, request) => {
      const answered = directAnswer(request);
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
      if (code === "NOT_FOUND") {
        const methods = routes.methodsFor(new URL(request.url).pathname);
        if (methods.length > 0 && !methods.includes(request.method)) {
          const error = new ApiError("method_not_allowed", `Use ${methods.join(" or ")} on this path.`, { headers: { allow: methods.join(", ") } });
          return problemResponse(error, state.id, state.headers);
        }
      }
      const apiError = toApiError(code, error, state.id);
      return problemResponse(apiError, state.id, state.headers);
    })
    .onAfterHandle({ as: "global" }, ({ request, response, set }) => {
      Object.assign(set.headers, requestState(request).headers);
      if (response && typeof response === "object" && "data" in response && "meta" in response) {
        fillAnswerMeta(request, (response as { meta: Record<string, unknown> }).meta);
      }
    })
    .use(observability(deps, observer))
    .use(primaryOnly(deps.settings.role))
    .use(accessPlugin(access, answeredBeforeRouting))
    .use(healthModule(deps))
    .use(faviconRoute())
    .use(docsModule(deps))
    .use(chainsModule())
    .use(pricesModule())
    .use(batchModule(deps))
    .use(storesModule())
    .use(exportsModule(deps))
    .use(catalogModule())
    .use(promosModule())
    .use(basketModule())
    .use(widgetModule(deps))
    .use(searchModule(dataSets))
    .use(alertsModule(deps))
    .use(portalModule(deps))
    // Tool calls are API requests made through the app itself, with the caller's key.
    .use(mcpModule(deps, (request: Request): Promise<Response> => app.handle(request)))
    .onStop(() => services.stop());
  return app;
}

export type App = ReturnType<typeof createApp>;
