import { ApiError } from "../../errors/api-error.ts";
import type { Feature } from "../feature.ts";
import { Elysia } from "elysia";
import { operation } from "../../openapi/operation.ts";
import { parseQuery } from "../../http/request/query.ts";
import * as z from "zod";
import type { Services } from "../../services.ts";
import { readJsonBody, validateBody } from "../../http/request/json-body.ts";
import { requestState } from "../../http/request/request-state.ts";
import {
  AlertListResponse,
  AlertParams,
  AlertResponse,
  CreateAlertBody,
  CreatedAlertResponse,
  DeletedResponse,
  DeliveryListResponse,
  DeliveryResponse,
  PageQuery,
} from "./model.ts";
import { alertJson, createAlert, deleteAlert, listAlerts, listDeliveries, MAX_ALERTS_PER_ACCOUNT, requireAlert, sendTestEvent } from "./service.ts";

const BODY_LIMIT = 8 * 1024;
const COMMON_ERRORS = "401 `missing_api_key`/`invalid_api_key`, 403 `plan_upgrade_required` (Pro), 429 `rate_limited`/`quota_exceeded`";
const NOT_FOUND = "404 `alert_not_found` (no such alert in this account)";

const EXAMPLE = { url: "https://hooks.example.com/mehir", barcode: "7291252436027", chain_ids: ["shufersal", "rami-levy"], city: "חיפה", condition: { below_ils: "9.90" } };

/**
 * The caller's account (the access plugin has checked the key and the Pro plan before routing).
 * Fails closed: a request that reached an alert handler without an access verdict is refused 401.
 */
function accountOf(request: Request): number {
  const access = requestState(request).access;
  if (!access) throw new ApiError("missing_api_key", "Send your API key in the X-API-Key header.");
  return access.accountId;
}

export const CREATE_ALERT = operation({
  method: "post",
  path: "/api/v1/alerts",
  operationId: "createAlert",
  audience: "pro",
  liveOnly: true,
  accountData: true,
  body: { schema: CreateAlertBody, example: EXAMPLE },
  success: { status: 201, description: "The alert, with its signing secret (shown only now)", schema: CreatedAlertResponse },
  errors: ["ambiguous_product", "alert_limit_reached"],
  summary: "Create a price alert (webhook)",
  tags: ["alerts"],
  description:
    "Body `{ url, barcode, chain_id?, chain_ids?, city?, condition }` as `application/json` (at most 8 KiB). `condition` is one of " +
    "`{ \"below_ils\": \"9.90\" }` (the lowest effective price among the alert's chains goes below the amount), `{ \"drop_pct\": 10 }` (it falls by at least 10 % since the previous data version) " +
    "or `{ \"promotion\": true }` (a promotion open to all customers starts lowering a chain's effective price). Prices are the chain figures of `/prices/` (effective price after promotions), over the stores of `city` when given, at the chains of `chain_ids` (default: all).\n\n" +
    "After every import the service evaluates each alert and sends one event per alert whose condition *became* true at that data version (not again while it stays true); " +
    "the state at subscription is the baseline, so a condition already true then does not fire (`last_evaluation` shows it). " +
    "Events are POSTed to `url` (see the `price.alert` webhook) signed with the alert's secret — returned once, here, as `secret`; keep it like a key. " +
    `The URL must be https to a public address: private, loopback and link-local targets are refused, also after DNS resolution; redirects are not followed. An account has at most ${MAX_ALERTS_PER_ACCOUNT} alerts.\n\n` +
    "The product is named as everywhere in the API: `barcode` (a GTIN, a chain-internal item code with its `chain_id`, or a generic product id `g-…`) — take both from a search or catalog item. `chain_id` without `chain_ids` also narrows the chains watched to that chain, as on `/prices/`.\n\n" +
    "Errors: 400 `invalid_parameter` with `param` (`url`: malformed, not https, or a private/loopback/link-local target; `barcode`: no chain sells it; `condition`, `chain_id`, `chain_ids[i]`, `city`), 400 `ambiguous_product` (a bare code several chains use: pass one of the `candidates`' `chain_id`), " +
    `409 \`alert_limit_reached\`, 413 \`payload_too_large\`, 415 \`unsupported_media_type\`, 503 \`data_not_ready\`, ${COMMON_ERRORS}.`,
});

export const LIST_ALERTS = operation({
  method: "get",
  path: "/api/v1/alerts",
  operationId: "listAlerts",
  audience: "pro",
  liveOnly: true,
  accountData: true,
  query: PageQuery,
  success: { schema: AlertListResponse },
  errors: [],
  summary: "List price alerts",
  tags: ["alerts"],
  description: `The account's alerts, newest first, cursor-paginated (\`limit\` 1–100, default 20; \`meta.next_cursor\`). Secrets are never shown again.\n\nErrors: 400 \`invalid_parameter\`/\`invalid_cursor\`, ${COMMON_ERRORS}.`,
});

export const GET_ALERT = operation({
  method: "get",
  path: "/api/v1/alerts/:id",
  operationId: "getAlert",
  audience: "pro",
  liveOnly: true,
  accountData: true,
  params: AlertParams,
  success: { schema: AlertResponse },
  errors: ["alert_not_found"],
  summary: "Get a price alert",
  tags: ["alerts"],
  description: `\`status\` is \`disabled\` (with \`disabled_at\` and \`disabled_reason\`) once deliveries to its URL have failed for 3 days; a successful test event enables it again. \`last_evaluation\`: the data version last evaluated, the lowest effective price then, and whether the condition held.\n\nErrors: ${NOT_FOUND}, 400 \`invalid_parameter\` (\`id\`), ${COMMON_ERRORS}.`,
});

export const DELETE_ALERT = operation({
  method: "delete",
  path: "/api/v1/alerts/:id",
  operationId: "deleteAlert",
  audience: "pro",
  liveOnly: true,
  accountData: true,
  params: AlertParams,
  success: { schema: DeletedResponse },
  errors: ["alert_not_found"],
  summary: "Delete a price alert",
  tags: ["alerts"],
  description: `Deletes the alert, its pending deliveries (never sent) and its delivery log.\n\nErrors: ${NOT_FOUND}, ${COMMON_ERRORS}.`,
});

export const LIST_ALERT_DELIVERIES = operation({
  method: "get",
  path: "/api/v1/alerts/:id/deliveries",
  operationId: "listAlertDeliveries",
  audience: "pro",
  liveOnly: true,
  accountData: true,
  params: AlertParams,
  query: PageQuery,
  success: { schema: DeliveryListResponse },
  errors: ["alert_not_found"],
  summary: "The delivery log of a price alert",
  tags: ["alerts"],
  description:
    "The alert's events, newest first, cursor-paginated: `event_id`, `status` (`pending` while being retried, `succeeded`, `failed`), `attempts`, `last_response_code`, `last_error`, `next_retry_at`, and the `payload` as sent.\n\n" +
    "A delivery succeeds on a 2xx answer within 10 s; otherwise it is retried with exponential backoff and ±20 % jitter (about 10 s, 30 s, 2 min, then 4 times longer each time — 8 min, 32 min, 2 h — up to 4 h apart) for 24 hours after the event, then marked `failed`. " +
    "A 3xx answer is a failure (redirects are not followed). Deliveries are kept in the database: a restart resumes them, and one answered 2xx is never sent again. A receiver may still, rarely, see an event twice (a crash between its answer and the record): deduplicate on `Mehir-Event-Id`.\n\n" +
    `Errors: ${NOT_FOUND}, 400 \`invalid_parameter\`/\`invalid_cursor\`, ${COMMON_ERRORS}.`,
});

export const TEST_ALERT = operation({
  method: "post",
  path: "/api/v1/alerts/:id/test",
  operationId: "sendAlertTestEvent",
  audience: "pro",
  liveOnly: true,
  params: AlertParams,
  success: { schema: DeliveryResponse },
  errors: ["alert_not_found"],
  summary: "Send a test event",
  tags: ["alerts"],
  description: `Sends the alert's URL an event like a real one, built from the current prices (\`data.test: true\`), signed like every event, attempted once, now; the answer is the delivery with its outcome (\`status\`, \`last_response_code\`, \`last_error\`). It appears in the delivery log. A success enables a disabled alert again.\n\nErrors: ${NOT_FOUND}, ${COMMON_ERRORS}.`,
});

/**
 * Price alerts: /api/v1/alerts/ (create, list), /{id}/ (get, delete), /{id}/deliveries/ (the
 * delivery log) and /{id}/test/ (send a test event). Pro plan. Answers are account data: never
 * cached (no ETag, `Cache-Control: no-store`).
 */
export function alertsModule(services: Pick<Services, "alerts" | "dataSets">) {
  const service = services.alerts;
  // Alerts watch the live data only (test keys are refused: live_key_required).
  const deps = services.dataSets.live;
  return new Elysia({ name: "module.alerts" })
    .onAfterHandle(({ set }) => {
      set.headers["cache-control"] = "no-store";
    })
    .post(
      CREATE_ALERT.path,
      async ({ request, set }) => {
        const body = validateBody(CreateAlertBody, await readJsonBody(request, BODY_LIMIT));
        const data = await createAlert(deps, service, accountOf(request), body);
        set.status = 201;
        return { data, meta: {} };
      },
      {
        parse: "none",
        response: { 201: CreatedAlertResponse },
      },
    )
    .get(
      LIST_ALERTS.path,
      ({ request }) => {
        const query = parseQuery(request, PageQuery);
        const { items, nextCursor } = listAlerts(service, accountOf(request), query.limit, query.cursor);
        return { data: items, meta: { next_cursor: nextCursor } };
      },
      {
        response: { 200: AlertListResponse },
      },
    )
    .get(
      GET_ALERT.path,
      ({ request, params }) => ({ data: alertJson(requireAlert(service, accountOf(request), params.id)), meta: {} }),
      {
        params: AlertParams,
        response: { 200: AlertResponse },
      },
    )
    .delete(
      DELETE_ALERT.path,
      ({ request, params }) => ({ data: deleteAlert(service, accountOf(request), params.id), meta: {} }),
      {
        params: AlertParams,
        response: { 200: DeletedResponse },
      },
    )
    .get(
      LIST_ALERT_DELIVERIES.path,
      ({ request, params }) => {
        const query = parseQuery(request, PageQuery);
        const { items, nextCursor } = listDeliveries(service, accountOf(request), params.id, query.limit, query.cursor);
        return { data: items, meta: { next_cursor: nextCursor } };
      },
      {
        params: AlertParams,
        response: { 200: DeliveryListResponse },
      },
    )
    .post(
      TEST_ALERT.path,
      async ({ request, params }) => ({ data: await sendTestEvent(deps, service, accountOf(request), params.id), meta: {} }),
      {
        params: AlertParams,
        response: { 200: DeliveryResponse },
      },
    );
}

/** Price alerts. */
export const alertsFeature: Feature = {
  name: "alerts",
  operations: [CREATE_ALERT, LIST_ALERTS, GET_ALERT, DELETE_ALERT, LIST_ALERT_DELIVERIES, TEST_ALERT],
  routes: ({ services }) => alertsModule(services),
};
