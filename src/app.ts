import { Elysia } from "elysia";
import type { ColdBudget } from "./http/cold-budget.ts";
import type { Settings } from "./config.ts";
import type { Databases } from "./db/open.ts";
import type { Registry } from "./registry.ts";
import type { DataState } from "./data-state.ts";
import { ApiError, problemResponse } from "./http/problem.ts";
import { requestState } from "./http/request-state.ts";
import { log } from "./log.ts";
import { AllowedMethods } from "./http/allowed-methods.ts";
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
import { ProductSearch } from "./search/index.ts";
import { backgroundPace } from "./http/background-pace.ts";
import { accessPlugin } from "./http/access/plugin.ts";
import { observability } from "./http/observability/plugin.ts";
import type { AccessService } from "./http/access/service.ts";
import { portalModule } from "./portal/index.ts";
import { alertsModule } from "./modules/alerts/index.ts";
import { alertsOf, type AlertService } from "./alerts/alert-service.ts";
import { mcpModule } from "./modules/mcp/index.ts";
import { DataSets, type DataSet } from "./http/data-set.ts";
import { livemodeOf } from "./http/livemode.ts";
import { faviconRoute } from "./http/favicon.ts";
import { openSandboxDatabase, Sandbox } from "./sandbox/sandbox.ts";
import type { ExportStore } from "./exports/store.ts";
import { primaryOnly } from "./cluster/primary-only.ts";

/** Everything the app needs, passed in so tests can build it on in-memory databases. */
export interface AppDeps {
  settings: Settings;
  db: Databases;
  registry: Registry;
  data: DataState;
  /** The current time; tests pin it. */
  now: () => Date;
  /**
   * The product search index; created by createApp when absent, rebuilt after every new data
   * version (`ProductSearch.follow`).
   */
  search?: ProductSearch;
  /** The daily exports on disk (`<data-dir>/exports`); none listed when absent. */
  exports?: ExportStore;
  /**
   * Keys, rate limits and quota counters shared by the access plugin and the portal; created by
   * createApp when absent. Stopping the app (app.stop()) flushes its usage counters.
   */
  access?: AccessService;
  /**
   * Price alerts: stores, evaluator (after every new data version) and the delivery worker with
   * its clock; created by createApp when absent (tests pass one on manual timers). Stopping the
   * app stops its timers.
   */
  alerts?: AlertService;
  /**
   * How much of the serving thread cold answers may take after a new data version (see
   * cold-budget.ts); default one measured on this thread's CPU time. Tests give one of their own.
   */
  coldBudget?: ColdBudget;
  /**
   * Test mode's data (`sk_test_` keys, when the live data is not the demo): the demo dataset in
   * its own database. The server's is `<data-dir>/sandbox.sqlite`; created by createApp when
   * absent (in memory, made on first use).
   */
  sandbox?: Sandbox;
  /**
   * The data sets requests read (live and the sandbox); created by createApp when absent. A
   * replica replaces the live one with each new snapshot (src/cluster/serve-snapshot.ts).
   */
  dataSets?: DataSets;
  /** Prometheus lines of the server's cluster role (src/cluster/cluster-role.ts), appended to /metrics. */
  roleMetrics?: () => string;
}

/** The longest request target (path and query) the app answers: 8 KiB. */
export const MAX_URL_BYTES = 8 * 1024;

/** The length of a URL's path and query as sent (percent-encoded, so bytes). */
function requestTargetLength(url: string): number {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  return start < 0 ? 0 : url.length - start;
}

/** Turns any thrown value into an ApiError; unknown errors become internal_error (logged, never shown). */
function toApiError(code: string | number, error: unknown, requestId: string): ApiError {
  if (error instanceof ApiError) return error;
  switch (code) {
    case "NOT_FOUND":
      return new ApiError("not_found", "No such resource.");
    case "VALIDATION":
      return validationError(error);
    case "PARSE":
      return new ApiError("invalid_parameter", "The request body could not be parsed as JSON.", { param: "body" });
    case "INVALID_COOKIE_SIGNATURE":
      return new ApiError("invalid_parameter", "Invalid cookie.", { param: "cookie" });
  }
  const status = (error as { status?: number } | null)?.status;
  if (status === 413) return new ApiError("payload_too_large", "The request body is too large.");
  log.error("unhandled error", { request_id: requestId, error: String((error as Error)?.stack ?? error) });
  return new ApiError("internal_error", `Something went wrong; quote request id ${requestId} when reporting it.`);
}

/** Elysia's validation error → invalid_parameter naming the first offending field. */
function validationError(error: unknown): ApiError {
  const e = error as { type?: string; all?: { path?: string; message?: string; summary?: string }[] } | null;
  const first = e?.all?.[0];
  const path = (first?.path ?? "").replace(/^\//, "").replaceAll("/", ".").replace(/\.(\d+)(?=\.|$)/g, "[$1]");
  const where = e?.type === "body" ? (path ? path : "body") : path || (e?.type ?? "request");
  return new ApiError("invalid_parameter", first?.message ?? first?.summary ?? "Invalid value.", { param: where });
}

/**
 * Builds the HTTP app. Tests call `app.handle(new Request(...))`; main.ts calls `listen`.
 * Hooks are registered before the modules so they apply to every route.
 */
export function createApp(deps: AppDeps) {
  deps.search ??= new ProductSearch({ pace: backgroundPace(deps) }).follow(deps.data, deps.db.prices);
  const alerts = alertsOf(deps);
  deps.sandbox ??= new Sandbox({ db: openSandboxDatabase(":memory:", deps.registry), registry: deps.registry, log: log.info, error: log.error, demo: { importer: "inline" } });
  const dataSets = (deps.dataSets ??= new DataSets(deps as DataSet, deps.sandbox, backgroundPace(deps)));
  const allowed = new AllowedMethods(() => app.routes);
  const app = new Elysia({ name: "mehir" })
    .onRequest(({ request, set }) => {
      const state = requestState(request);
      set.headers["x-request-id"] = state.id;
      // Below the runtime's own limit (16 KiB of request line and headers), so an over-long URL
      // gets a problem+json answer with its request id, not a bare status from the server.
      if (requestTargetLength(request.url) > MAX_URL_BYTES) {
        return problemResponse(new ApiError("uri_too_long", `The URL is longer than ${MAX_URL_BYTES / 1024} KiB; send long lists in a POST body (e.g. /api/v1/prices/batch/).`), state.id);
      }
    })
    .onError({ as: "global" }, ({ code, error, request }) => {
      const state = requestState(request);
      if (code === "NOT_FOUND") {
        const methods = allowed.for(new URL(request.url).pathname);
        if (methods.length > 0 && !methods.includes(request.method)) {
          const error = new ApiError("method_not_allowed", `Use ${methods.join(" or ")} on this path.`, { headers: { allow: methods.join(", ") } });
          return problemResponse(error, state.id, state.headers);
        }
      }
      const apiError = toApiError(code, error, state.id);
      return problemResponse(apiError, state.id, state.headers);
    })
    .onAfterHandle({ as: "global" }, ({ request, response, set }) => {
      const state = requestState(request);
      Object.assign(set.headers, state.headers);
      if (response && typeof response === "object" && "data" in response && "meta" in response) {
        const meta = (response as { meta: Record<string, unknown> }).meta;
        meta.request_id = state.id;
        // Test keys read test-mode data (the sandbox); everyone else live data.
        meta.livemode = livemodeOf(request);
        if (state.access && state.access.keyKind !== "publishable" && state.access.quotaRemaining !== null) {
          meta.quota_remaining = state.access.quotaRemaining;
        }
      }
    })
    .use(observability(deps, (): { method: string; path: string }[] => app.routes, dataSets))
    .use(primaryOnly(deps.settings.role))
    .use(accessPlugin(deps, dataSets))
    .use(healthModule(deps))
    .use(faviconRoute())
    .use(docsModule(deps))
    .use(chainsModule())
    .use(pricesModule())
    .use(batchModule(deps))
    .use(storesModule(deps))
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
    .onStop(() => alerts.stop());
  return app;
}

export type App = ReturnType<typeof createApp>;
