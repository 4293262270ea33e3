import { Elysia } from "elysia";
import type { Feature } from "../feature.ts";
import type { RouteDeclaration } from "../../http/routes.ts";
import { requestPath } from "../../http/request/request-target.ts";
import { operation } from "../../openapi/operation.ts";
import { parseQuery } from "../../http/request/query.ts";
import type { Services } from "../../services.ts";
import { ApiError } from "../../errors/api-error.ts";
import { requestState } from "../../http/request/request-state.ts";
import { requireData } from "../../serving/require-data.ts";
import { widgetAssets, type WidgetAsset } from "./assets.ts";
import { ASSET_CORS, dataCors, preflightHeaders } from "../../access/cors.ts";
import { demoPage, PUBLISHABLE_KEY, type VisitorKeyFit } from "./demo-page.ts";
import { demoWidgetKey } from "./demo-key.ts";
import { WidgetDataQuery, WidgetDataResponse } from "./model.ts";
import { demoProducts, widgetDataJson } from "./service.ts";
import { publicOrigin } from "../../http/request/public-origin.ts";
import { documentedOnly, prebuiltJson } from "../../http/prebuilt/prebuilt-json.ts";
import { servedData } from "../../serving/data-set.ts";
import { originAllowed } from "../../accounts/origins.ts";
import type { ActiveKey } from "../../access/key-lookup.ts";

/** Whether a visitor's key will work on this page (the demo page says so, and the widgets behave so). */
function visitorKeyFit(key: ActiveKey | null, own: string): VisitorKeyFit {
  if (!key || key.kind !== "publishable") return { fit: "unusable" };
  if (key.allowedOrigins.length === 0) return { fit: "any-origin" };
  if (originAllowed(key.allowedOrigins, own, () => own)) return { fit: "allowed-here", origins: key.allowedOrigins };
  return { fit: "other-origins", origins: key.allowedOrigins };
}

const DATA_PATH = /^\/api\/v1\/widget\/data\/?$/;

const ASSET_CACHE = "public, max-age=3600";
const DATA_CACHE = "public, max-age=300, stale-while-revalidate=3600";

function assetResponse(request: Request, file: WidgetAsset): Response {
  const headers: Record<string, string> = {
    "content-type": file.contentType,
    "cache-control": ASSET_CACHE,
    etag: file.etag,
    "x-content-type-options": "nosniff",
    "x-request-id": requestState(request).id,
    ...ASSET_CORS,
  };
  const match = request.headers.get("if-none-match");
  if (match && match.split(",").some((tag) => tag.trim().replace(/^W\//, "") === file.etag)) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(file.body, { headers });
}

/**
 * The data endpoint's CORS preflight: a browser sends it without a key, so it is declared public
 * (it answers only CORS headers). Left out of the OpenAPI document, like the widget's files.
 */
export const WIDGET_PREFLIGHT: RouteDeclaration = { method: "options", path: "/api/v1/widget/data", audience: "public" };

export const WIDGET_DATA = operation({
  method: "get",
  path: "/api/v1/widget/data",
  operationId: "getWidgetData",
  audience: "publishable",
  query: WidgetDataQuery,
  examples: { barcode: "7291252436027" },
  success: { schema: WidgetDataResponse },
  errors: ["ambiguous_product", "product_not_found", "chain_not_found"],
  conditional: true,
  summary: "Data for the embeddable widget",
  tags: ["widget"],
  description:
    "Publishable key (`pk_live_…`) in the `key` query parameter (a simple GET: no CORS preflight) or the `X-API-Key` header. " +
    "One entry per chain with the same rules as the chain entries of /prices/: `price_ils` is the chain's most common shelf price among its stores carrying the product (tie → lower), " +
    "`effective_price_ils` likewise after active promotions open to all customers for a single unit; sorted by `effective_price_ils`, then chain name; `cheapest_chain_id` is the first.\n\n" +
    "CORS: `Access-Control-Allow-Origin` echoes the page's origin when the key allows it (`Vary: Origin`). `Cache-Control: public, max-age=300, stale-while-revalidate=3600`. " +
    "Counted against the key's monthly widget quota, with a per-address rate limit (a 429 `rate_limited` carries `Retry-After`; the widget waits and retries).\n\n" +
    "The demo page `/widget/v1/demo.html` needs no key of yours: the service makes, on its first view, a publishable key of its own whose allowed origin is `self` (the service's own pages, at whatever host they were reached); other sites' pages get 403 `origin_not_allowed` with it.\n\n" +
    "Errors: 400 `invalid_parameter`, 401 `missing_api_key`/`invalid_api_key`, 403 `secret_key_not_allowed`/`origin_not_allowed`, 400 `ambiguous_product` (with `candidates`; add `chain_id`), 404 `product_not_found`, 429 `rate_limited`/`quota_exceeded`, 503 `data_not_ready`.",
});

/**
 * The embeddable widget: its files under /widget/v1/ (built from widget/ or embedded in the
 * binary), a demo page, and GET /api/v1/widget/data/. Keys, allowed origins, quota and rate
 * limits of publishable keys are the access layer's; this module only reads its verdict.
 */
export function widgetModule(deps: Pick<Services, "settings" | "db" | "now" | "access" | "dataSets">) {
  const live = deps.dataSets.live;
  return new Elysia({ name: "module.widget" })
    .use(prebuiltJson())
    .use(servedData)
    .onRequest(({ request }) => {
      // Every error of the data endpoint (bad key, origin not allowed, rate limit, unknown product)
      // stays readable by the widget; the handler narrows CORS on success.
      if (DATA_PATH.test(requestPath(request) ?? "")) {
        Object.assign(requestState(request).headers, dataCors(request.headers.get("origin"), null, true));
      }
    })
    .get(
      WIDGET_DATA.path,
      // Publishable keys are live: `dataSet` is the live data.
      ({ request, dataSet }) => {
        const query = parseQuery(request, WidgetDataQuery);
        requireData(dataSet);
        const { json: data, snapshot } = widgetDataJson(dataSet, query.barcode, publicOrigin(request, deps.settings.trustProxy), query.chain_id);
        // Success: data only to an origin the access layer accepted (errors keep the onRequest headers).
        const state = requestState(request);
        delete state.headers["access-control-allow-origin"];
        delete state.headers["access-control-expose-headers"];
        Object.assign(state.headers, dataCors(request.headers.get("origin"), state.access, false));
        state.headers["cache-control"] = DATA_CACHE;
        state.snapshot = snapshot;
        return { data, meta: { data_updated_at: snapshot.updatedAt, source: snapshot.source } };
      },
      {
        // Answers are cached and serialized once; tests check them against the schema.
        response: { 200: documentedOnly(WidgetDataResponse) },
      },
    )
    .options(
      WIDGET_PREFLIGHT.path,
      ({ request }) => new Response(null, { status: 204, headers: { ...preflightHeaders(request.headers.get("origin")), "x-request-id": requestState(request).id } }),
      { detail: { hide: true } },
    )
    .get(
      "/widget/v1/demo.html",
      async ({ query, request }) => {
        const given = typeof query.key === "string" ? query.key.trim() : "";
        const visitorKey = PUBLISHABLE_KEY.test(given) ? given : null;
        // Without a key of the visitor's, the service's own demo key (made on first use).
        const key = visitorKey ?? demoWidgetKey(deps.db.accounts, deps.now());
        const own = publicOrigin(request, deps.settings.trustProxy);
        const html = demoPage({
          key,
          visitorKey: visitorKey === null ? null : visitorKeyFit(await deps.access.keys.lookup(visitorKey), own),
          keyIsDemo: visitorKey === null && key !== null,
          badKey: given !== "" && visitorKey === null,
          products: live.data.hasData ? demoProducts(live) : [],
          hasData: live.data.hasData,
          origin: publicOrigin(request, deps.settings.trustProxy),
        });
        return new Response(html, {
          headers: {
            "content-type": "text/html; charset=utf-8",
            "cache-control": "no-store",
            "content-security-policy":
              "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
            "referrer-policy": "no-referrer",
            "x-request-id": requestState(request).id,
          },
        });
      },
      { detail: { hide: true } },
    )
    .get(
      "/widget/v1/:file",
      async ({ params, request }) => {
        const file = (await widgetAssets()).get(params.file);
        if (!file) throw new ApiError("not_found", `No widget file ${params.file}.`);
        return assetResponse(request, file);
      },
      { detail: { hide: true } },
    );
}

/** The embeddable widget: its data endpoint (and that endpoint's CORS preflight), files and demo page. */
export const widgetFeature: Feature = {
  name: "widget",
  operations: [WIDGET_DATA],
  undocumented: [WIDGET_PREFLIGHT],
  routes: ({ services }) => widgetModule(services),
};
