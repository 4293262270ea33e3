import { Elysia } from "elysia";
import type { Settings } from "../config.ts";
import { then, type MaybePromise } from "../lib/maybe-promise.ts";
import type { ActiveKey } from "./key-lookup.ts";
import { accountSubject, widgetSubject } from "./quota-ledger.ts";
import type { AccessService } from "./service.ts";
import type { LoadMeter } from "../serving/load-meter.ts";
import { dataCors } from "./cors.ts";
import { ApiError } from "../errors/api-error.ts";
import { planAllows, type Plan } from "../accounts/plans.ts";
import type { Audience } from "../openapi/operation.ts";
import { trimSlash, type MatchedRoute, type RouteAudience, type RouteTable } from "../http/routes.ts";
import { requestSlot } from "../http/request/request-slot.ts";
import { requestState, type AccessContext, type RequestState } from "../http/request/request-state.ts";
import { requestPath } from "../http/request/request-target.ts";
import { invalidTarget } from "../http/request/invalid-target.ts";
import { noRouteError } from "../http/no-route.ts";
import { afterAnswer } from "../http/last-resort.ts";
import { log } from "../lib/log.ts";
import { etagFor, etagMatches, httpDate } from "../serving/etag.ts";
import { requestClient, type PeerSource } from "../http/request/client-address.ts";
import { looksSecret, secretKeyInQuery } from "../accounts/key-format.ts";
import { originAllowed, pageOrigin } from "../accounts/origins.ts";
import { publicOrigin } from "../http/request/public-origin.ts";
import { paramValue, queryParams } from "../http/request/query-params.ts";
import { PLAN_NAMES, planQuota, planRate } from "../accounts/plan-limits.ts";
import { deferredCharges, quotaExceeded, quotaReservations } from "./route-calls.ts";
import { quotaHeaders, rateHeaders, SECRET_CACHE_CONTROL, WIDGET_CACHE_CONTROL } from "./response-headers.ts";
import type { AfterResponse } from "../http/observability/plugin.ts";
import { finalStatus, type EndedRequest } from "../http/observability/final-status.ts";
import { selectDataSet, dataSetOf, type DataSets } from "../serving/data-set.ts";
import type { DataSet } from "../deps.ts";
import { SANDBOX_RETRY_AFTER_S } from "../sandbox/sandbox.ts";
import { countedRequestId } from "./counted-request.ts";

/** The route pattern each request's access was decided on (null: none matched). */
const decidedRoutes = requestSlot<string | null>("decidedRoute");

/** A route registered under /api/ or /mcp with no declaration: refused, and logged for whoever added it. */
function undeclaredRoute(method: string, path: string): ApiError {
  log.error("route without a declared operation refused", { method, route: path });
  return new ApiError("not_found", "No such resource.");
}

/** The token of an `Authorization: Bearer …` header, or null. */
function bearerToken(request: Request): string | null {
  const value = request.headers.get("authorization");
  const match = value ? /^Bearer\s+(\S+)\s*$/i.exec(value) : null;
  return match ? match[1]! : null;
}

/** The status a request was answered with (a 405 reads as 404 here: both are counted alike). */
const noOtherMethods = () => false;
const endedWith = (request: Request, ctx: EndedRequest) => finalStatus(ctx, request, noOtherMethods);

/** Final statuses that do not count against the quota. */
function refunds(status: number): boolean {
  return status === 304 || status === 429 || status >= 500;
}


/**
 * The ETag of an answer: its data version and request, the answers' epoch, and the mode — test
 * mode's answers (the sandbox, or the demo data read with a test key) never share a tag with live ones.
 */
export function answerEtag(request: Request, dataSet: DataSet, version: number, livemode: boolean, at?: number): string {
  const epoch = dataSet.epoch.at(at ?? dataSet.now().getTime());
  return etagFor(version, request, livemode ? epoch : `${epoch}:test`);
}

/** What the access layer uses: the access service, the settings, the clock, the load meter. */
export interface AccessDeps {
  access: AccessService;
  settings: Settings;
  now: () => Date;
  /** API requests per second: background work paces itself by it (background-pace.ts). */
  loadMeter: LoadMeter;
}

/**
 * The access layer's steps (accessPlugin runs them as Elysia hooks). `guard`, before routing
 * and validation: key checks, plan gate, the data set the request reads (`dataSets`: the
 * sandbox for a test key), conditional GET, then one metering step (rate limit and quota,
 * meter.ts). The verdict goes on `requestState(request)`: `access` (the app fills
 * meta.quota_remaining and meta.livemode from it) and `headers` (X-RateLimit-*, X-Quota-*, on
 * success and error answers alike). Synchronous with in-process access state; it waits only
 * when the access service answers later (a shared store). `validators` after the handler,
 * `settle` after the answer.
 */
export function accessLayer(deps: AccessDeps, dataSets: DataSets, routes: RouteTable) {
  const { access, settings, loadMeter: meter } = deps;
  const reservations = quotaReservations;

  /** Refuses a request that has no usable key, charging the caller's address (so guessing is throttled too). */
  function refuseAnonymous(request: Request, address: string, widget: boolean, error: ApiError): MaybePromise<never> {
    const state = requestState(request);
    const taken = widget ? access.limiter.take(`widget:${address}`, settings.widgetRate) : access.limiter.take(`ip:${address}`, settings.rateAnonymous);
    return then(taken, (verdict) => {
      rateHeaders(verdict, state.headers);
      if (!verdict.allowed) throw rateLimited(verdict.retryAfter);
      throw error;
    });
  }

  function rateLimited(retryAfter: number): ApiError {
    return new ApiError("rate_limited", `Too many requests; retry in ${retryAfter} s.`, { headers: { "retry-after": String(retryAfter) } });
  }

  /**
   * Keys, rate limit and quota for one request: undefined to go on, a Response (a 304) to send, or
   * an ApiError thrown. `known`: the request's route, when the caller matched it already (a direct
   * route, whose method and path are its own: routeOf, once).
   */
  function guard(request: Request, server: PeerSource | null, known?: RouteAudience): MaybePromise<Response | undefined> {
    // Each route declares its audience (and rules) on its operation: see routes.ts. The path is the
    // one the router dispatches (request-target.ts); the app refused the request before this when
    // there is none, and so does this.
    const path = requestPath(request);
    if (path === null) throw invalidTarget();
    const { audience, route } = known ?? routes.audience(request.method, path);
    decidedRoutes.set(request, route?.path ?? null);
    const state = requestState(request);
    // Under /api/ and /mcp only declared routes answer: no route is 404 (or 405), and a route
    // registered without a declaration is refused like a path nobody serves, never public.
    if (audience === "undeclared") {
      const refusal = route ? undeclaredRoute(request.method, route.path) : noRouteError(routes, request.method, path);
      return then(guardPublic(request, server, state), () => {
        throw refusal;
      });
    }
    // Everyone reads the live data but test keys (chosen below).
    selectDataSet(request, dataSets.live);
    // Public paths (probes, docs, widget files, images, the portal) are not limited here: only API
    // operations are, per key or, without a usable key, per client address. The portal limits
    // sign-in and sign-up attempts itself.
    if (audience === "public") return guardPublic(request, server, state);
    meter.note();

    const widget = audience === "publishable";
    const origin = request.headers.get("origin");
    // Errors on the widget endpoint stay readable by the widget on any page (no data in them).
    if (widget) Object.assign(state.headers, dataCors(origin, null, true));

    const mcp = audience === "mcp";
    // MCP clients are commonly configured with a bearer token: /mcp takes the key there too.
    const header = request.headers.get("x-api-key")?.trim() || (mcp ? bearerToken(request) : null);
    // The query is read only when there is one (the widget's `key`, or a secret key sent where it
    // must not be), parsed once for the route too (query-params.ts).
    const params = request.url.includes("?") ? queryParams(request) : null;
    const fromQuery = (params && paramValue(params, "key")?.trim()) || null;
    if ((fromQuery !== null && looksSecret(fromQuery)) || (params !== null && secretKeyInQuery(request.url, params))) {
      return refuseAnonymous(request, addressOf(request, server), widget, new ApiError("secret_key_not_allowed", "Secret keys go in the X-API-Key header, never in a URL; roll this key if it was exposed."));
    }
    const presented = header ?? fromQuery;
    if (presented === null) {
      const how = widget
        ? "Send a publishable key in the key query parameter or the X-API-Key header."
        : mcp
          ? "Send your API key in the X-API-Key header or as Authorization: Bearer."
          : "Send your API key in the X-API-Key header.";
      return refuseAnonymous(request, addressOf(request, server), widget, new ApiError("missing_api_key", how));
    }
    // No function made per request for the next step when the lookup answers at once (in process).
    const key = access.keys.lookup(presented);
    if (key instanceof Promise) return guardFoundLater(request, server, key, audience, route);
    return guardFound(request, server, key, audience, route);
  }

  /** guardFound once a lookup answering later (a shared store) answered: apart, so guard itself makes no closure. */
  function guardFoundLater(request: Request, server: PeerSource | null, key: Promise<ActiveKey | null>, audience: Audience, route: MatchedRoute | null): Promise<Response | undefined> {
    return key.then((found) => guardFound(request, server, found, audience, route));
  }

  /**
   * A public path: every response carries X-RateLimit-* (the contract), and public paths are not
   * limited, so they show the client address's bucket for calls without a key, without taking
   * from it. (Apart from guard: its closure would make guard's scope object on every request.)
   */
  function guardPublic(request: Request, server: PeerSource | null, state: RequestState): MaybePromise<undefined> {
    return then(access.limiter.peek(`ip:${requestClient(request, server, settings.trustProxy)}`, settings.rateAnonymous), (verdict) => {
      rateHeaders(verdict, state.headers);
      return undefined;
    });
  }

  /** The client's address: only refusals without a usable key and the widget's buckets need it here (a native call per use). */
  function addressOf(request: Request, server: PeerSource | null): string {
    return requestState(request).internal?.client ?? requestClient(request, server, settings.trustProxy);
  }

  /** After the key lookup: a refusal for no such key, else the key's checks and metering. */
  function guardFound(request: Request, server: PeerSource | null, key: ActiveKey | null, audience: Audience, route: MatchedRoute | null): MaybePromise<Response | undefined> {
    if (!key) return refuseAnonymous(request, addressOf(request, server), audience === "publishable", new ApiError("invalid_api_key", "The API key is malformed, unknown or revoked."));
    return guardKey(request, key, audience, route, server);
  }

  /** A refusal for a known key: its bucket's figures (nothing taken) and its quota figures. */
  function refuseKey(state: RequestState, bucket: { id: string; perMinute: number }, quotaLimit: number | null, quotaSubject: string, now: Date, error: ApiError): MaybePromise<never> {
    return then(access.limiter.peek(bucket.id, bucket.perMinute), (verdict) => {
      rateHeaders(verdict, state.headers);
      if (quotaLimit === null) throw error;
      return then(access.quota.usedThisMonth(quotaSubject, now), (used): never => {
        quotaHeaders(quotaLimit, quotaLimit - used, state.headers);
        throw error;
      });
    });
  }

  /** The checks and metering of a request presenting an active key. */
  function guardKey(request: Request, key: ActiveKey, audience: Audience, route: MatchedRoute | null, server: PeerSource | null): MaybePromise<Response | undefined> {
    const state = requestState(request);
    const widget = audience === "publishable";
    const mcp = audience === "mcp";
    // The MCP envelope (initialize, tools/list, …) has a bucket of its own: a tool call's API
    // request takes from the key's bucket exactly as the same call made directly would.
    const bucket = { id: widget ? `widget:${addressOf(request, server)}` : mcp ? `mcp:${key.id}` : `key:${key.id}`, perMinute: widget ? settings.widgetRate : planRate(settings, key.plan) };
    const now = deps.now();
    const secret = key.kind !== "publishable";
    const quotaLimit = secret ? planQuota(settings, key.plan) : null;
    const quotaSubject = secret ? accountSubject(key.accountId) : widgetSubject(key.id);

    if (widget && secret) return refuseKey(state, bucket, quotaLimit, quotaSubject, now, new ApiError("secret_key_not_allowed", "Secret keys never go to the widget endpoint: they would be visible in the page. Use a publishable key (pk_live_…)."));
    if (!widget && !secret) return refuseKey(state, bucket, quotaLimit, quotaSubject, now, new ApiError("publishable_key_not_allowed", "Publishable keys work only on the widget endpoint; use a secret key (sk_live_… or sk_test_…)."));
    if (widget) {
      // A widget on one of the service's own pages (the demo page) asks without an Origin header.
      const own = () => publicOrigin(request, settings.trustProxy);
      const from = pageOrigin(request, own);
      if (!originAllowed(key.allowedOrigins, from, own)) return refuseKey(state, bucket, quotaLimit, quotaSubject, now, new ApiError("origin_not_allowed", `This publishable key is not allowed on ${from}.`));
    }
    if (!widget && !mcp && !planAllows(key.plan, audience as Plan)) {
      return refuseKey(state, bucket, quotaLimit, quotaSubject, now, new ApiError("plan_upgrade_required", `This operation needs the ${PLAN_NAMES[audience as Plan]} plan or higher; this key's account is on ${PLAN_NAMES[key.plan]}.`));
    }
    const rules = route?.operation;
    if (key.kind === "test" && rules?.liveOnly) {
      return refuseKey(state, bucket, quotaLimit, quotaSubject, now, new ApiError("live_key_required", "This operation works on live data only (price alerts and the daily exports); use an sk_live_ key. Test keys read the sandbox."));
    }

    // What the request will count, decided before metering: the data set it reads (null while a
    // test key's sandbox is being made), whether it is a 304 (never counted), how it counts.
    const dataSet = mcp ? null : dataSets.forKey(key.kind);
    const accountData = rules?.accountData === true;
    let etag: string | null = null;
    // The current answer's tag is made here only for a conditional GET (most requests are not).
    const ifNoneMatch = request.headers.get("if-none-match");
    if (ifNoneMatch && dataSet && !accountData && (request.method === "GET" || request.method === "HEAD")) {
      const candidate = answerEtag(request, dataSet, dataSet.data.current.version, key.kind !== "test");
      if (etagMatches(ifNoneMatch, candidate)) etag = candidate;
    }
    const byWork = quotaLimit !== null && rules?.itemsPerCall !== undefined;
    // sk_test_ never counts; sk_live_ counts against the account, pk_live_ against the key's
    // widget quota; the MCP envelope, 304s and work-counted routes (charged by their handler) take
    // nothing here. A secret key's quota figures are read either way (its headers show them).
    const counts = !mcp && dataSet !== null && etag === null && key.kind !== "test" && !byWork;
    const limit = quotaLimit ?? settings.widgetQuota;
    const quota = counts ? { subject: quotaSubject, limit, calls: 1 } : quotaLimit !== null ? { subject: quotaSubject, limit: quotaLimit, calls: 0 } : null;

    return then(access.meter.admit({ requestId: countedRequestId(request, state.id), bucket, quota, now, notModified: etag !== null }), (verdict) => {
      const remaining = verdict.quota?.remaining ?? 0;
      rateHeaders(verdict.rate, state.headers);
      if (quotaLimit !== null) quotaHeaders(quotaLimit, remaining, state.headers);
      if (!verdict.rate.allowed) throw rateLimited(verdict.rate.retryAfter);

      state.access = contextFor(key, quotaLimit, quotaLimit === null ? null : remaining);
      // The MCP envelope itself is not counted: each tool call is, by the API request it makes.
      if (mcp) return undefined;
      if (!dataSet) {
        throw new ApiError("data_not_ready", "Test mode's sandbox data is being made (once, in seconds); try again shortly.", {
          headers: { "retry-after": String(SANDBOX_RETRY_AFTER_S) },
        });
      }
      selectDataSet(request, dataSet);
      if (accountData) state.accountData = true;
      if (etag !== null) return notModified(request, etag, widget, dataSet);
      if (key.kind === "test") return undefined;
      if (byWork) {
        // Counted by the work the body asks for: the handler takes every call at once (chargeCalls),
        // so concurrent requests never hold part of what they need. Refused now if nothing is left.
        if (remaining <= 0) {
          quotaHeaders(quotaLimit!, 0, state.headers);
          state.access.quotaRemaining = 0;
          throw quotaExceeded(now, `This month's quota is spent (the ${PLAN_NAMES[key.plan]} plan's ${limit} calls); it renews at 00:00 UTC on the 1st.`);
        }
        deferredCharges.set(request, { subject: quotaSubject, limit });
        return undefined;
      }
      const reservation = verdict.quota?.reservation ?? null;
      if (!reservation) {
        if (quotaLimit !== null) quotaHeaders(quotaLimit, 0, state.headers);
        state.access.quotaRemaining = quotaLimit === null ? null : 0;
        const what = secret ? `${PLAN_NAMES[key.plan]} plan's ${limit} calls` : `publishable key's ${limit} widget views`;
        throw quotaExceeded(now, `This month's quota is spent (the ${what}); it renews at 00:00 UTC on the 1st.`);
      }
      reservations.set(request, reservation);
      state.access.quotaReserved = true;
      return undefined;
    });
  }

  function contextFor(key: ActiveKey, quotaLimit: number | null, quotaRemaining: number | null): AccessContext {
    return {
      accountId: key.accountId,
      keyId: key.id,
      keyKind: key.kind,
      keyPrefix: key.prefix,
      plan: key.plan,
      quotaLimit,
      quotaRemaining,
      quotaReserved: false,
    };
  }

  function notModified(request: Request, etag: string, widget: boolean, dataSet: DataSet): Response {
    const state = requestState(request);
    const headers: Record<string, string> = { ...state.headers, "x-request-id": state.id, etag };
    const lastModified = httpDate(dataSet.data.current.updatedAt);
    if (lastModified) headers["last-modified"] = lastModified;
    if (widget) {
      delete headers["access-control-allow-origin"];
      delete headers["access-control-expose-headers"];
      Object.assign(headers, dataCors(request.headers.get("origin"), state.access, false));
      headers["cache-control"] = WIDGET_CACHE_CONTROL;
    } else {
      headers["cache-control"] = SECRET_CACHE_CONTROL;
    }
    return new Response(null, { status: 304, headers });
  }

  /**
   * Validators of a successful GET answer (ETag, Last-Modified) and the default Cache-Control,
   * set on `headers` (the answer's own). Returns the 304 to send instead when the request asked
   * `If-None-Match: *` (any current answer matches it: known only now that the resource exists),
   * the reserved quota unit given back.
   */
  function validators(request: Request, headers: Record<string, string>, status: number): Response | undefined {
    const state = requestState(request);
    if (!state.access || (request.method !== "GET" && request.method !== "HEAD")) return;
    if (state.accountData) return; // account data (alerts): no validators, the module says no-store
    if (status < 200 || status >= 300) return;
    // The answer's own data version (the current one, unless a handler served the previous).
    const dataSet = dataSetOf(request);
    const snapshot = state.snapshot ?? dataSet.data.current;
    const etag = answerEtag(request, dataSet, snapshot.version, state.access.keyKind !== "test");
    headers.etag = etag;
    const lastModified = httpDate(snapshot.updatedAt);
    if (lastModified) headers["last-modified"] = lastModified;
    if (request.headers.get("if-none-match")?.trim() === "*") {
      // Not counted, as any 304: the unit reserved before the handler ran goes back now.
      const reservation = reservations.get(request);
      if (reservation) {
        reservations.delete(request);
        void access.quota.refund(reservation);
        if (state.access.quotaLimit !== null && state.access.quotaRemaining !== null) {
          state.access.quotaRemaining += 1;
          quotaHeaders(state.access.quotaLimit, state.access.quotaRemaining, state.headers);
        }
      }
      return notModified(request, etag, state.access.keyKind === "publishable", dataSet);
    }
    if (state.access.keyKind !== "publishable" && !headers["cache-control"] && !state.headers["cache-control"]) {
      headers["cache-control"] = SECRET_CACHE_CONTROL;
    }
    return undefined;
  }

  /** After the answer: a call counted by its work that ended before its handler charged it counts one; a 304, 429 or 5xx gives its reserved calls back. */
  function settle(request: Request, ended: EndedRequest): void {
    const deferred = deferredCharges.get(request);
    if (deferred) {
      // A request counted by its work that ended before its handler charged it (an error the
      // handler did not foresee) counts one call, like any answered request.
      deferredCharges.delete(request);
      if (!refunds(endedWith(request, ended))) void access.quota.tryReserve(deferred.subject, deferred.limit, deps.now(), 1, countedRequestId(request, requestState(request).id));
    }
    const reservation = reservations.get(request);
    if (!reservation) return;
    reservations.delete(request);
    if (refunds(endedWith(request, ended))) void access.quota.refund(reservation);
  }

  /** A route's audience and rules, matched as guard matches a request's (for `known`). */
  const routeOf = (method: string, path: string): RouteAudience => routes.audience(method, path);

  /**
   * After routing: the route the router dispatched must be the one the guard decided on. They are
   * one parse of one path (request-target.ts); a difference means a change broke that, and the
   * request is refused rather than served on another route's access.
   */
  function confirmRoute(request: Request, routed: string): void {
    const decided = decidedRoutes.get(request);
    if (decided === trimSlash(routed)) return;
    log.error("access decided on another route than the router dispatched; refused", { request_id: requestState(request).id, decided: decided ?? null, routed });
    throw new ApiError("internal_error", `Something went wrong; quote request id ${requestState(request).id} when reporting it.`);
  }

  return { guard, routeOf, confirmRoute, validators, settle, flush: () => access.flush() };
}

export type AccessLayer = ReturnType<typeof accessLayer>;

/**
 * The access layer as one global Elysia plugin, registered before the modules: the guard in
 * onRequest (before routing and validation), the validators after the handler, the quota's
 * settlement after the answer (see accessLayer).
 */
export function accessPlugin(layer: AccessLayer, answeredBeforeRouting: (request: Request, response: Response) => void) {
  return new Elysia({ name: "access" })
    // A Response returned here (a 304 decided before routing) skips Elysia's after-response
    // hooks: the caller records it (metrics, request log) as they would have.
    .onRequest(({ request, server }) =>
      then(layer.guard(request, server as PeerSource | null), (early) => {
        if (early) answeredBeforeRouting(request, early);
        return early;
      }),
    )
    // Before validation and the handler: the access decision was made on the route that runs.
    .onTransform({ as: "global" }, ({ request, route }) => layer.confirmRoute(request, route))
    .onAfterHandle({ as: "global" }, ({ request, set }) => {
      const status = typeof set.status === "number" ? set.status : 200;
      const notModified = layer.validators(request, set.headers as Record<string, string>, status);
      if (notModified) {
        set.status = 304;
        return notModified;
      }
    })
    // Named fields only: a hook given the whole context makes Elysia parse every request's cookies.
    .onAfterResponse({ as: "global" }, ({ request, set, error, code, responseValue }: AfterResponse) =>
      afterAnswer(request, "quota settlement", () => layer.settle(request, { set, error, code, responseValue })),
    )
    .onStop(() => layer.flush());
}
