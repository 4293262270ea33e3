import { Elysia } from "elysia";
import type { AppDeps } from "../../app.ts";
import { dataCors } from "../../modules/widget/cors.ts";
import { ApiError } from "../problem.ts";
import { ACCOUNT_DATA_ROUTES, LIVE_ONLY_ROUTES, planAllows, type Plan } from "../plans.ts";
import { requestState, type AccessContext } from "../request-state.ts";
import { etagFor, etagMatches, httpDate } from "../etag.ts";
import { answerEpoch } from "../answer-epoch.ts";
import { requestClient, type PeerSource } from "./client-address.ts";
import type { ActiveKey } from "./key-cache.ts";
import { looksSecret, secretKeyInQuery } from "./key-format.ts";
import { originAllowed, pageOrigin } from "./origins.ts";
import { publicOrigin } from "../public-origin.ts";
import { PLAN_NAMES, planQuota, planRate } from "./plan-limits.ts";
import { accountSubject, widgetSubject } from "./quota-ledger.ts";
import { countsByWork, deferredCharges, quotaExceeded, quotaReservations } from "./route-calls.ts";
import { quotaHeaders, rateHeaders, SECRET_CACHE_CONTROL, WIDGET_CACHE_CONTROL } from "./response-headers.ts";
import { matchRoute } from "./route-match.ts";
import { accessOf } from "./service.ts";
import type { AfterResponse } from "../observability/plugin.ts";
import { loadMeterOf } from "../load-meter.ts";
import { requestSlot } from "../request-slot.ts";
import { selectDataSet, dataSetOf, type DataSet, type DataSets } from "../data-set.ts";
import { SANDBOX_RETRY_AFTER_S } from "../../sandbox/sandbox.ts";

/**
 * The path of a request URL as Elysia routes it (the text between the authority and `?`, not
 * decoded): no URL object per request.
 * @example pathOf("http://x:8080/api/v1/prices/?barcode=1") // "/api/v1/prices/"
 */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const query = url.indexOf("?", start);
  const hash = url.indexOf("#", start);
  const end = query >= 0 ? query : hash >= 0 ? hash : url.length;
  return url.slice(start, end);
}

/** The token of an `Authorization: Bearer …` header, or null. */
function bearerToken(request: Request): string | null {
  const value = request.headers.get("authorization");
  const match = value ? /^Bearer\s+(\S+)\s*$/i.exec(value) : null;
  return match ? match[1]! : null;
}

/** Final statuses that do not count against the quota. */
function refunds(status: number): boolean {
  return status === 304 || status === 429 || status >= 500;
}

/** The status an answer ended with, as seen from onAfterResponse (errors are rendered by the app's onError). */
function finalStatus(ctx: { set: { status?: unknown }; error?: unknown; code?: unknown; responseValue?: unknown }): number {
  if (ctx.responseValue instanceof Response) return ctx.responseValue.status;
  if (ctx.error !== undefined && ctx.error !== null) {
    const status = (ctx.error as { status?: unknown }).status;
    if (typeof status === "number") return status;
    if (ctx.code === "NOT_FOUND") return 404;
    if (ctx.code === "VALIDATION" || ctx.code === "PARSE" || ctx.code === "INVALID_COOKIE_SIGNATURE") return 400;
    return 500;
  }
  return typeof ctx.set.status === "number" ? ctx.set.status : 200;
}

/**
 * The ETag of an answer: its data version and request, the answers' epoch, and the mode — test
 * mode's answers (the sandbox, or the demo data read with a test key) never share a tag with live ones.
 */
function answerEtag(request: Request, dataSet: DataSet, version: number, livemode: boolean): string {
  const epoch = answerEpoch(dataSet);
  return etagFor(version, request, livemode ? epoch : `${epoch}:test`);
}

/**
 * The access layer, one global plugin registered before the modules. In onRequest, before
 * routing and validation: key checks, plan gate, rate limit, the data set the request reads
 * (`dataSets`: the sandbox for a test key), conditional GET, quota. The verdict goes on
 * `requestState(request)`: `access` (the app fills meta.quota_remaining and meta.livemode from
 * it) and `headers` (X-RateLimit-*, X-Quota-*, on success and error answers alike).
 */
export function accessPlugin(deps: AppDeps, dataSets: DataSets) {
  const access = accessOf(deps);
  const { settings } = deps;
  const reservations = quotaReservations;
  // API requests per second: background work paces itself by it (background-pace.ts).
  const meter = loadMeterOf(deps);

  /** Refuses a request that has no usable key, charging the caller's address (so guessing is throttled too). */
  function refuseAnonymous(request: Request, address: string, widget: boolean, error: ApiError): never {
    const state = requestState(request);
    const verdict = widget ? access.limiter.take(`widget:${address}`, settings.widgetRate) : access.limiter.take(`ip:${address}`, settings.rateAnonymous);
    Object.assign(state.headers, rateHeaders(verdict));
    if (!verdict.allowed) throw rateLimited(verdict.retryAfter);
    throw error;
  }

  function rateLimited(retryAfter: number): ApiError {
    return new ApiError("rate_limited", `Too many requests; retry in ${retryAfter} s.`, { headers: { "retry-after": String(retryAfter) } });
  }

  function guard(request: Request, server: PeerSource | null): Response | undefined {
    const { audience, route } = matchRoute(request.method, pathOf(request.url));
    // Everyone reads the live data but test keys (chosen below).
    selectDataSet(request, dataSets.live);
    // Public paths (probes, docs, widget files, images, the portal) are not limited here: only API
    // operations are, per key or, without a usable key, per client address. The portal limits
    // sign-in and sign-up attempts itself.
    const state = requestState(request);
    if (audience === "public") {
      // Every response carries X-RateLimit-* (the contract): public paths are not limited, so they
      // show the client address's bucket for calls without a key, without taking from it.
      Object.assign(state.headers, rateHeaders(access.limiter.peek(`ip:${requestClient(request, server, settings.trustProxy)}`, settings.rateAnonymous)));
      return undefined;
    }
    meter.note();
    // Only refusals without a usable key and the widget's buckets need it (a native call per use).
    const address = () => state.internal?.client ?? requestClient(request, server, settings.trustProxy);

    const widget = audience === "publishable";
    const origin = request.headers.get("origin");
    // Errors on the widget endpoint stay readable by the widget on any page (no data in them).
    if (widget) Object.assign(state.headers, dataCors(origin, null, true));

    const mcp = audience === "mcp";
    // MCP clients are commonly configured with a bearer token: /mcp takes the key there too.
    const header = request.headers.get("x-api-key")?.trim() || (mcp ? bearerToken(request) : null);
    // The URL is parsed only when it has a query string (the widget's `key`, or a secret key sent
    // where it must not be).
    const params = request.url.includes("?") ? new URL(request.url).searchParams : null;
    const fromQuery = params?.get("key")?.trim() || null;
    if ((fromQuery !== null && looksSecret(fromQuery)) || (params !== null && secretKeyInQuery(request.url, params))) {
      refuseAnonymous(request, address(), widget, new ApiError("secret_key_not_allowed", "Secret keys go in the X-API-Key header, never in a URL; roll this key if it was exposed."));
    }
    const presented = header ?? fromQuery;
    if (presented === null) {
      const how = widget
        ? "Send a publishable key in the key query parameter or the X-API-Key header."
        : mcp
          ? "Send your API key in the X-API-Key header or as Authorization: Bearer."
          : "Send your API key in the X-API-Key header.";
      refuseAnonymous(request, address(), widget, new ApiError("missing_api_key", how));
    }
    const key = access.keys.lookup(presented);
    if (!key) refuseAnonymous(request, address(), widget, new ApiError("invalid_api_key", "The API key is malformed, unknown or revoked."));

    // The MCP envelope (initialize, tools/list, …) has a bucket of its own: a tool call's API
    // request takes from the key's bucket exactly as the same call made directly would.
    const bucketId = widget ? `widget:${address()}` : mcp ? `mcp:${key.id}` : `key:${key.id}`;
    const perMinute = widget ? settings.widgetRate : planRate(settings, key.plan);
    const now = deps.now();
    const secret = key.kind !== "publishable";
    const quotaLimit = secret ? planQuota(settings, key.plan) : null;
    const quotaSubject = secret ? accountSubject(key.accountId) : widgetSubject(key.id);
    const liveRemaining = () => Math.max(0, (quotaLimit ?? 0) - access.quota.usedThisMonth(quotaSubject, now));

    /** A refusal for a known key: its bucket's figures (nothing taken) and its quota figures. */
    const refuse = (error: ApiError): never => {
      Object.assign(state.headers, rateHeaders(access.limiter.peek(bucketId, perMinute)));
      if (quotaLimit !== null) Object.assign(state.headers, quotaHeaders(quotaLimit, liveRemaining()));
      throw error;
    };
    if (widget && secret) refuse(new ApiError("secret_key_not_allowed", "Secret keys never go to the widget endpoint: they would be visible in the page. Use a publishable key (pk_live_…)."));
    if (!widget && !secret) refuse(new ApiError("publishable_key_not_allowed", "Publishable keys work only on the widget endpoint; use a secret key (sk_live_… or sk_test_…)."));
    if (widget) {
      // A widget on one of the service's own pages (the demo page) asks without an Origin header.
      const own = () => publicOrigin(request, settings.trustProxy);
      const from = pageOrigin(request, own);
      if (!originAllowed(key.allowedOrigins, from, own)) refuse(new ApiError("origin_not_allowed", `This publishable key is not allowed on ${from}.`));
    }
    if (!widget && !mcp && !planAllows(key.plan, audience as Plan)) {
      refuse(new ApiError("plan_upgrade_required", `This operation needs the ${PLAN_NAMES[audience as Plan]} plan or higher; this key's account is on ${PLAN_NAMES[key.plan]}.`));
    }

    if (key.kind === "test" && route !== null && LIVE_ONLY_ROUTES.has(route)) {
      refuse(new ApiError("live_key_required", "This operation works on live data only (price alerts and the daily exports); use an sk_live_ key. Test keys read the sandbox."));
    }

    const verdict = access.limiter.take(bucketId, perMinute);
    Object.assign(state.headers, rateHeaders(verdict));
    if (quotaLimit !== null) Object.assign(state.headers, quotaHeaders(quotaLimit, liveRemaining()));
    if (!verdict.allowed) throw rateLimited(verdict.retryAfter);

    state.access = contextFor(key, quotaLimit, quotaLimit === null ? null : liveRemaining());
    // The MCP envelope itself is not counted: each tool call is, by the API request it makes.
    if (mcp) return undefined;

    const dataSet = dataSets.forKey(key.kind);
    if (!dataSet) {
      throw new ApiError("data_not_ready", "Test mode's sandbox data is being made (once, in seconds); try again shortly.", {
        headers: { "retry-after": String(SANDBOX_RETRY_AFTER_S) },
      });
    }
    selectDataSet(request, dataSet);

    if (route !== null && ACCOUNT_DATA_ROUTES.has(route)) state.accountData = true;
    else if (request.method === "GET" || request.method === "HEAD") {
      const etag = answerEtag(request, dataSet, dataSet.data.current.version, key.kind !== "test");
      if (etagMatches(request.headers.get("if-none-match"), etag)) return notModified(request, etag, widget, dataSet);
    }

    // sk_test_ never counts; sk_live_ counts against the account, pk_live_ against the key's widget quota.
    if (key.kind === "test") return undefined;
    const limit = quotaLimit ?? settings.widgetQuota;
    if (quotaLimit !== null && route !== null && countsByWork(request.method, route)) {
      // Counted by the work the body asks for: the handler takes every call at once (chargeCalls),
      // so concurrent requests never hold part of what they need. Refused now if nothing is left.
      if (liveRemaining() <= 0) {
        Object.assign(state.headers, quotaHeaders(quotaLimit, 0));
        state.access.quotaRemaining = 0;
        throw quotaExceeded(now, `This month's quota is spent (the ${PLAN_NAMES[key.plan]} plan's ${limit} calls); it renews at 00:00 UTC on the 1st.`);
      }
      deferredCharges.set(request, { subject: quotaSubject, limit });
      return undefined;
    }
    const reserved = access.quota.tryReserve(quotaSubject, limit, now);
    if (!reserved.ok) {
      if (quotaLimit !== null) Object.assign(state.headers, quotaHeaders(quotaLimit, 0));
      state.access.quotaRemaining = quotaLimit === null ? null : 0;
      const what = secret ? `${PLAN_NAMES[key.plan]} plan's ${limit} calls` : `publishable key's ${limit} widget views`;
      throw quotaExceeded(now, `This month's quota is spent (the ${what}); it renews at 00:00 UTC on the 1st.`);
    }
    reservations.set(request, reserved.reservation);
    state.access.quotaReserved = true;
    if (quotaLimit !== null) {
      state.access.quotaRemaining = reserved.remaining;
      Object.assign(state.headers, quotaHeaders(quotaLimit, reserved.remaining));
    }
    return undefined;
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

  return new Elysia({ name: "access" })
    .onRequest(({ request, server }) => guard(request, server as PeerSource | null))
    .onAfterHandle({ as: "global" }, ({ request, set }) => {
      const state = requestState(request);
      if (!state.access || (request.method !== "GET" && request.method !== "HEAD")) return;
      if (state.accountData) return; // account data (alerts): no validators, the module says no-store
      const status = typeof set.status === "number" ? set.status : 200;
      if (status < 200 || status >= 300) return;
      // The answer's own data version (the current one, unless a handler served the previous).
      const dataSet = dataSetOf(request);
      const snapshot = state.snapshot ?? dataSet.data.current;
      set.headers.etag = answerEtag(request, dataSet, snapshot.version, state.access.keyKind !== "test");
      const lastModified = httpDate(snapshot.updatedAt);
      if (lastModified) set.headers["last-modified"] = lastModified;
      // `If-None-Match: *` matches any current answer: known only now that the resource exists.
      if (request.headers.get("if-none-match")?.trim() === "*") {
        set.status = 304;
        // Not counted, as any 304: the unit reserved before the handler ran goes back now.
        const reservation = reservations.get(request);
        if (reservation) {
          reservations.delete(request);
          access.quota.refund(reservation);
          if (state.access.quotaLimit !== null && state.access.quotaRemaining !== null) {
            state.access.quotaRemaining += 1;
            Object.assign(state.headers, quotaHeaders(state.access.quotaLimit, state.access.quotaRemaining));
          }
        }
        return notModified(request, set.headers.etag, state.access.keyKind === "publishable", dataSet);
      }
      if (state.access.keyKind !== "publishable" && !set.headers["cache-control"] && !state.headers["cache-control"]) {
        set.headers["cache-control"] = SECRET_CACHE_CONTROL;
      }
    })
    // Named fields only: a hook given the whole context makes Elysia parse every request's cookies.
    .onAfterResponse({ as: "global" }, ({ request, set, error, code, responseValue }: AfterResponse) => {
      const deferred = deferredCharges.get(request);
      if (deferred) {
        // A request counted by its work that ended before its handler charged it (an error the
        // handler did not foresee) counts one call, like any answered request.
        deferredCharges.delete(request);
        const status = finalStatus({ set, error, code, responseValue });
        if (!refunds(status)) access.quota.tryReserve(deferred.subject, deferred.limit, deps.now());
      }
      const reservation = reservations.get(request);
      if (!reservation) return;
      reservations.delete(request);
      if (refunds(finalStatus({ set, error, code, responseValue }))) access.quota.refund(reservation);
    })
    .onStop(() => access.flush());
}
