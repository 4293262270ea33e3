import { Elysia } from "elysia";
import type { Feature } from "../feature.ts";
import { operation } from "../../openapi/operation.ts";
import { parseQuery } from "../../http/request/query.ts";
import { HistoryParams, HistoryQuery, HistoryResponse, PricesQuery, PricesResponse } from "./model.ts";
import { countHeldChainPrices, heldChainPricesJson, productPricesJson, productPricesPage } from "./service.ts";
import { ApiError } from "../../errors/api-error.ts";
import { parsePricesQuery } from "./parse-query.ts";
import { cachedPriceHistory } from "./history.ts";
import { monthsGiven, servedMonths } from "./served-months.ts";
import { requireData } from "../../serving/require-data.ts";
import { requestState } from "../../http/request/request-state.ts";
import { documentedOnly, prebuiltJson, type PrebuiltJson } from "../../http/prebuilt/prebuilt-json.ts";
import type { DataSet } from "../../deps.ts";
import { priceFilters } from "./filters.ts";
import { requireChain } from "../chains/service.ts";
import { dataSetOf, servedData } from "../../serving/data-set.ts";
import { isProductId } from "../../identity/product-id.ts";
import type { HeldAnswer } from "../../http/express-lane.ts";

const ERRORS = "Errors: 400 `invalid_parameter` (with `param`), 401 `missing_api_key`/`invalid_api_key`, 403 `plan_upgrade_required`, 400 `ambiguous_product` (a bare chain-internal code several chains use; the body lists `candidates: [{ barcode, chain_id, name }]` — pass one with its `chain_id`), 404 `product_not_found`, or `chain_not_found` for an unknown `chain_id`, 429 `rate_limited`/`quota_exceeded`, 503 `data_not_ready`.";

export const GET_PRICES = operation({
  method: "get",
  path: "/api/v1/prices",
  operationId: "getPrices",
  audience: "free",
  query: PricesQuery,
  examples: { barcode: "7291252436027", granularity: "store", city: "חיפה", region: "haifa", chain_id: "shufersal", near: "32.7940,34.9896" },
  success: { schema: PricesResponse },
  errors: ["ambiguous_product", "product_not_found", "chain_not_found", "city_not_found"],
  conditional: true,
  summary: "Prices of one product across chains",
  tags: ["prices"],
  description:
    "One entry per chain (`granularity=chain`, default) or per store (`granularity=store`), sorted by `effective_price_ils`, then chain name.\n\n" +
    "A chain's `price_ils` is the most common shelf price among its stores carrying the product (tie → the lower), with `min_price_ils`, `max_price_ils` and `store_count`; " +
    "stores in Eilat (VAT-free) are left out of a chain's figures unless the chain sells the product only there. " +
    "`effective_price_ils` applies the best active promotion open to all customers that applies to a single unit; club-only and coupon promotions never change it (see /promos/feed/). " +
    "`price_per_measure_ils` is computed by the service from the normalised package size and the effective price, per `measure` (`100g`, `100ml` or `unit`), null when the size is unknown. " +
    "`vat_rate` is 0.18 (0.17 before 2025-01-01); Eilat stores: `vat_included: false`, `vat_rate: 0`.\n\n" +
    "A store entry names its `store`: `store_id`, `branch_name`, `city` and `region` (a slug; `city` and `region` are null, never empty, when the store list gives none the service recognises). " +
    "Identifiers: `barcode` is a search or catalog item's `barcode`, passed with its `chain_id` when that is not null (a chain-internal item code names one chain's item, never merged with another chain's code or a GTIN of the same digits), or a generic product id (`g-…`: loose produce grouped across chains, priced per kilogram or per unit). " +
    "A bare internal code several chains use is 400 `ambiguous_product`, never a silent pick.\n\n" +
    "Filters: `chain_id` (unknown → 404 `chain_not_found`), `city` (any common spelling, English name or CBS code), `region` (one of the region slugs); at chain granularity they narrow the stores a chain's figures are taken over.\n\n" +
    "Store entries in pages (`granularity=store` only; at chain granularity `limit` or `cursor` is 400 `invalid_parameter`): without `limit` every store's entry comes in one answer; with `limit` (1–1000) that many, with `meta.total` (entries over all pages) and `meta.next_cursor` — pass it as `cursor` with the same `limit` and filters, null on the last page. Every page is cut out of the same list; a cursor of another question or limit, of an older data version, or made before a promotion started or ended and reordered the list is 400 `invalid_cursor` (start again).\n\n" +
    ERRORS +
    "\n\nExamples (on the embedded demo data): `GET /api/v1/prices/?barcode=7291252436027&granularity=store&city=חיפה` (a GTIN), " +
    "`GET /api/v1/prices/?barcode=4087&chain_id=osher-ad` (a chain-internal code: without `chain_id` it is `ambiguous_product`, several chains use 4087), " +
    "`GET /api/v1/prices/?barcode=g-tomatoes` (tomatoes at every chain, per kilogram)",
});

export const GET_PRICE_HISTORY = operation({
  method: "get",
  path: "/api/v1/prices/:barcode/history",
  operationId: "getPriceHistory",
  audience: "basic",
  params: HistoryParams,
  query: HistoryQuery,
  examples: { barcode: "7291252436027", chain_id: "shufersal" },
  success: { schema: HistoryResponse },
  errors: ["ambiguous_product", "product_not_found", "chain_not_found"],
  conditional: true,
  summary: "Price history of one product per chain",
  tags: ["prices"],
  description:
    "One record per chain per date on which that chain's price (the most common shelf price among its stores) changed, plus the first date of the window (`meta.from`); sorted by chain, then date. `months` 1–24, default 12; a server that keeps fewer months of history (setting MEHIR_HISTORY_MONTHS below 24) allows up to that many (default 12 or that, whichever is lower).\n\n" +
    ERRORS,
});

/** GET /api/v1/prices/'s answer: `data` serialized once per cached answer, `meta` filled by the app. */
export function pricesAnswer(request: Request, dataSet: DataSet): { data: PrebuiltJson; meta: Record<string, unknown> } {
  const query = parsePricesQuery(request);
  const paged = query.limit !== undefined || query.cursor !== undefined;
  if (paged && query.granularity !== "store") {
    // Paging is for the long lists (a store per entry); a chain answer has some 30 entries.
    const param = query.limit !== undefined ? "limit" : "cursor";
    throw new ApiError("invalid_parameter", `\`${param}\` pages store entries: it needs granularity=store.`, { param });
  }
  requireData(dataSet);
  if (paged) {
    const page = productPricesPage(dataSet, query.barcode, priceFilters(dataSet, query), { limit: query.limit, cursor: query.cursor });
    requestState(request).snapshot = page.snapshot;
    return { data: page.json, meta: { data_updated_at: page.snapshot.updatedAt, source: page.snapshot.source, next_cursor: page.nextCursor, total: page.total } };
  }
  const { json, snapshot } = productPricesJson(dataSet, query.barcode, query.granularity, priceFilters(dataSet, query));
  requestState(request).snapshot = snapshot;
  return { data: json, meta: { data_updated_at: snapshot.updatedAt, source: snapshot.source } };
}

/** GET /api/v1/prices/ and GET /api/v1/prices/{barcode}/history/. */
export function pricesModule() {
  // Handlers read `dataSet` (live, or the sandbox for a test key), not `deps`: see data-set.ts.
  return new Elysia({ name: "module.prices" })
    .use(prebuiltJson())
    .use(servedData)
    .get(
      GET_PRICES.path,
      ({ request, dataSet }) => pricesAnswer(request, dataSet),
      {
        // Answers come from a cache of checked data, serialized once (see prebuilt-json.ts).
        response: { 200: documentedOnly(PricesResponse) },
      },
    )
    .get(
      GET_PRICE_HISTORY.path,
      ({ params, request, dataSet }) => {
        const parsed = parseQuery(request, HistoryQuery);
        const query = { ...parsed, months: servedMonths(parsed.months, monthsGiven(request), dataSet.settings.historyMonths) };
        requireData(dataSet);
        if (query.chain_id !== undefined) requireChain(dataSet, query.chain_id, "chain_id");
        const { value, snapshot } = cachedPriceHistory(dataSet, params.barcode, query.months, query.chain_id);
        requestState(request).snapshot = snapshot;
        return {
          data: value.json,
          meta: { months: query.months, records: value.history.length, from: value.from, data_updated_at: snapshot.updatedAt },
        };
      },
      {
        params: HistoryParams,
        // Cached answers serialized once (see prebuilt-json.ts); tests check them against the schema.
        response: { 200: documentedOnly(HistoryResponse) },
      },
    );
}

/** A product id as a query value needs no decoding: digits, letters and `-` only (pricesAnswer reads any other). */
const PLAIN_ID = /^[0-9A-Za-z-]+$/;

/**
 * The express lane's lookup (src/http/express-lane.ts): the live data's held answer for a query
 * that is exactly `barcode=<id>` — the commonest — read as parsePricesQuery reads it (one
 * `barcode`, a value isProductId accepts, chain granularity, no filters). Any other query is
 * pricesAnswer's.
 */
export function heldPricesAnswer(live: DataSet, query: string, at: number): HeldAnswer | undefined {
  if (!query.startsWith("barcode=")) return undefined;
  const barcode = query.slice(8);
  if (!PLAIN_ID.test(barcode) || !isProductId(barcode)) return undefined;
  return heldChainPricesJson(live, barcode, at);
}

/** One product's prices (on the fast lane, its commonest request on the express lane) and its price history. */
export const pricesFeature: Feature = {
  name: "prices",
  operations: [GET_PRICES, GET_PRICE_HISTORY],
  routes: () => pricesModule(),
  fast: (services) => [
    {
      method: "GET",
      path: GET_PRICES.path,
      answer: (request) => pricesAnswer(request, dataSetOf(request)),
      held: (query, at) => heldPricesAnswer(services.dataSets.live, query, at),
      heldServed: () => countHeldChainPrices(services.dataSets.live),
    },
  ],
};
