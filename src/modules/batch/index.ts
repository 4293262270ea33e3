import { Elysia } from "elysia";
import type { Feature } from "../feature.ts";
import { operation } from "../../openapi/operation.ts";
import * as z from "zod";
import type { Services } from "../../services.ts";
import { callsFor, chargeCalls } from "../../access/route-calls.ts";
import { readJsonBody, MAX_JSON_BODY } from "../../http/request/json-body.ts";
import { documentedOnly, prebuiltJson, type PrebuiltJson } from "../../http/prebuilt/prebuilt-json.ts";
import type { DataSet } from "../../deps.ts";
import { dataSetOf, servedData } from "../../serving/data-set.ts";
import { requireData } from "../../serving/require-data.ts";
import { requestState } from "../../http/request/request-state.ts";
import { BatchBody, BatchResponse, MAX_BATCH_ITEMS } from "./model.ts";
import { parseBatchBody, readBatchJson } from "./parse-body.ts";
import { batchPricesJson, checkBatchFilters } from "./service.ts";

const EXAMPLE = {
  items: [{ barcode: "7291252436027" }, { barcode: "7299739033158" }, { barcode: "4087", chain_id: "osher-ad" }],
  granularity: "chain",
  city: "חיפה",
};

export const BATCH_PRICES = operation({
  method: "post",
  path: "/api/v1/prices/batch",
  operationId: "getPricesBatch",
  audience: "free",
  // One call per 10 items, rounded up: a batch of 1–10 is one call, of 100 ten.
  itemsPerCall: 10,
  body: { schema: BatchBody, example: EXAMPLE },
  success: { schema: BatchResponse },
  errors: ["chain_not_found", "city_not_found"],
  summary: "Prices of many products in one call",
  tags: ["prices"],
  description:
    `Body \`{ items: [{ barcode, chain_id? }], granularity?, chain_ids?, city?, region?, near?, radius_km? }\` as \`application/json\` (at most 64 KiB), 1–${MAX_BATCH_ITEMS} items. ` +
    "Each item is answered exactly as `GET /api/v1/prices/?barcode=…` with the item's `chain_id` and the batch's filters would answer it (the same computation and the same cached answer): `data` holds one result per item, in the order sent — the `/prices/` `data`, or `{ barcode, chain_id?, error: { code, detail } }` with the code `/prices/` would answer (`product_not_found`, `chain_not_found` for an unknown item `chain_id`). Repeated items are answered each time.\n\n" +
    "Filters, for every item: `granularity` (`chain` default, `store`), `chain_ids` (only these chains' entries; the batch form of `/prices/`' `chain_id`), `city`, `region`, `near` (`\"lat,lon\"`) with `radius_km` (0.1–50, default 5; store entries then carry `distance_km`).\n\n" +
    "Quota: one call per 10 items, rounded up (1–10 items: 1 call; 100 items: 10), shown in `meta.calls`; a body refused with 400 counts one call. When fewer calls are left than the batch counts, it is refused whole with 429 `quota_exceeded` and counts nothing.\n\n" +
    "Errors: 400 `invalid_parameter` with `param` (`items` for more than 100 or none, `items[3].barcode`, `chain_ids[0]` for an unknown chain, `near` malformed or outside Israel, `radius_km` out of 0.1–50 or without `near`, `body` when empty or not JSON), 413 `payload_too_large`, 415 `unsupported_media_type`, 401/403/429/503 as everywhere.",
});

/**
 * POST /api/v1/prices/batch/'s answer (the route's handler, and the fast lane's: src/http/fast-lane.ts): the
 * body read and checked, the calls it counts taken, each item's /prices/ answer. A refused body
 * counts one call, as any answered request does.
 */
export async function batchAnswer(
  request: Request,
  dataSet: DataSet,
  deps: Pick<Services, "access" | "now">,
): Promise<{ data: PrebuiltJson; meta: Record<string, unknown> }> {
  requireData(dataSet);
  let body: BatchBody;
  try {
    const { value, itemsChecked } = (await readJsonBody(request, MAX_JSON_BODY, readBatchJson)) as ReturnType<typeof readBatchJson>;
    body = parseBatchBody(value, itemsChecked);
    checkBatchFilters(dataSet, body);
  } catch (error) {
    await chargeCalls(deps.access.quota, deps.now(), request, 1);
    throw error;
  }
  const calls = callsFor(BATCH_PRICES.itemsPerCall!, body.items.length);
  await chargeCalls(deps.access.quota, deps.now(), request, calls);
  const { json, snapshot } = batchPricesJson(dataSet, body);
  requestState(request).snapshot = snapshot;
  return { data: json, meta: { items: body.items.length, calls, data_updated_at: snapshot.updatedAt, source: snapshot.source } };
}

/** POST /api/v1/prices/batch/: many products' /prices/ answers in one call. */
export function batchModule(deps: Pick<Services, "access" | "now">) {
  // Handlers read `dataSet` (live, or the sandbox for a test key): see data-set.ts.
  return new Elysia({ name: "module.batch" })
    .use(prebuiltJson())
    .use(servedData)
    .post(BATCH_PRICES.path, ({ request, dataSet }) => batchAnswer(request, dataSet, deps), {
      parse: "none",
      // Each item's answer is /prices/'s cached answer as sent (checked there); documented here.
      response: { 200: documentedOnly(BatchResponse) },
    });
}

/** Many products' prices in one call (on the fast lane). */
export const batchFeature: Feature = {
  name: "batch",
  operations: [BATCH_PRICES],
  routes: ({ services }) => batchModule(services),
  fast: (services) => [{ method: "POST", path: BATCH_PRICES.path, answer: (request) => batchAnswer(request, dataSetOf(request), services) }],
};
