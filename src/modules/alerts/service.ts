import type { DataSet } from "../../deps.ts";
import type { Alert } from "../../alerts/alert-store.ts";
import type { AlertService } from "../../alerts/alert-service.ts";
import { conditionJson, conditionOf } from "../../alerts/condition.ts";
import type { Delivery } from "../../alerts/delivery-store.ts";
import { evaluate, type Trigger } from "../../alerts/evaluate.ts";
import { eventBody, newEventId } from "../../alerts/event.ts";
import { filterChains, priceView } from "../../alerts/price-view.ts";
import { checkTarget, RefusedTarget } from "../../alerts/url-guard.ts";
import { stmt } from "../../db/statements.ts";
import { cityFilterName, findCity } from "../../geo/geo.ts";
import { randomBase62 } from "../../accounts/key-format.ts";
import { decodeCursor, encodeCursor } from "../../http/encoding/cursor.ts";
import { ApiError, invalidParameter } from "../../errors/api-error.ts";
import { requireData } from "../../serving/require-data.ts";
import { formatIls, toIsraelIso } from "../../lib/time.ts";
import { productError, resolveProduct } from "../../identity/resolve.ts";
import type { CreateAlertBody } from "./model.ts";

/** Alerts one account may have (each one is evaluated after every import). */
export const MAX_ALERTS_PER_ACCOUNT = 100;

const iso = (ms: number | null) => (ms === null ? null : toIsraelIso(new Date(ms)));

/** The API's alert object. */
export function alertJson(a: Alert) {
  return {
    id: a.publicId,
    url: a.url,
    barcode: a.barcode,
    chain_id: a.chainId,
    chain_ids: a.chainIds,
    city: a.city,
    condition: conditionJson(a.condition),
    status: a.status,
    disabled_at: iso(a.disabledAt),
    disabled_reason: a.disabledReason,
    secret_last4: a.secretLast4,
    last_evaluation:
      a.state === null || a.stateVersion === 0
        ? null
        : { data_version: a.stateVersion, effective_price_ils: a.state.best === null ? null : formatIls(a.state.best), condition_met: a.state.met },
    created_at: toIsraelIso(new Date(a.createdAt)),
  };
}

/** The API's delivery object (the delivery log). */
export function deliveryJson(d: Delivery) {
  return {
    event_id: d.eventId,
    test: d.isTest,
    status: d.status,
    attempts: d.attempts,
    last_response_code: d.lastStatusCode,
    last_error: d.lastError,
    created_at: toIsraelIso(new Date(d.createdAt)),
    last_attempt_at: iso(d.lastAttemptAt),
    next_retry_at: d.status === "pending" ? iso(d.nextAttemptAt) : null,
    completed_at: iso(d.completedAt),
    payload: JSON.parse(d.payload) as unknown,
  };
}

/** A city filter as stored: the canonical name of a known locality or of a store's city; else 400. */
function alertCity(deps: DataSet, raw: string): string {
  const name = cityFilterName(raw);
  if (findCity(raw)) return name;
  if (stmt(deps.db.prices, "SELECT 1 FROM stores WHERE city = ? LIMIT 1").get(name)) return name;
  throw invalidParameter("city", `No store is in a city called ${raw}.`);
}

/**
 * POST /api/v1/alerts/: checks the URL (form, and every address its host resolves to), the
 * product, chains and city; records the alert with its state at the served data version (so only
 * a change at a later version fires) and its sealed secret. The secret is returned once.
 */
export async function createAlert(deps: DataSet, service: AlertService, accountId: number, body: CreateAlertBody) {
  requireData(deps);
  try {
    await checkTarget(body.url, service.policy);
  } catch (error) {
    if (error instanceof RefusedTarget) throw invalidParameter("url", `This URL cannot receive webhooks: ${error.message}.`);
    throw error;
  }
  if (body.chain_id !== undefined && !deps.registry.bySlug.has(body.chain_id)) throw invalidParameter("chain_id", `No chain with id ${body.chain_id}.`);
  body.chain_ids?.forEach((slug, i) => {
    if (!deps.registry.bySlug.has(slug)) throw invalidParameter(`chain_ids[${i}]`, `No chain with id ${slug}.`);
  });
  // The product as every endpoint resolves it (src/identity/resolve.ts); for an alert an unknown
  // product is bad input (400 naming barcode), an ambiguous code 400 ambiguous_product with candidates.
  const resolved = resolveProduct(deps.db.prices, { barcode: body.barcode, chain_id: body.chain_id });
  if (!resolved.ok && resolved.error === "product_not_found") {
    throw invalidParameter("barcode", `No chain sells a product with barcode ${body.barcode}${body.chain_id ? ` at ${body.chain_id}` : ""}.`);
  }
  if (!resolved.ok) throw productError(resolved, body.barcode);
  const product = resolved.product;
  const city = body.city === undefined ? null : alertCity(deps, body.city);
  // A chain-internal item stays pinned to its chain; `chain_id` without `chain_ids` also narrows the
  // chains watched to that one, as it narrows /prices/.
  const chainIds = body.chain_ids ?? (body.chain_id ? [body.chain_id] : []);
  const target = { barcode: product.barcode, chainId: product.scope_slug, chainIds: [...new Set(chainIds)], city };
  const condition = conditionOf(body.condition as never);
  const snapshot = deps.data.current;
  const now = deps.now();
  const { state } = evaluate(condition, null, filterChains(priceView(deps, target, now), target.chainIds));
  const publicId = "alrt_" + randomBase62(24);
  const secret = "whsec_" + randomBase62(32);
  const alert = service.alerts.insert(
    {
      publicId,
      accountId,
      url: body.url,
      ...target,
      condition: conditionJson(condition),
      secretSealed: service.box.seal(secret, publicId),
      secretLast4: secret.slice(-4),
      state,
      stateVersion: snapshot.version,
      createdAt: service.timers.now(),
    },
    MAX_ALERTS_PER_ACCOUNT,
  );
  if (!alert) {
    throw new ApiError("alert_limit_reached", `An account has at most ${MAX_ALERTS_PER_ACCOUNT} alerts; delete one first.`);
  }
  return { ...alertJson(alert), secret };
}

function pageCursor(rows: { id: number }[], limit: number, kind: string): string | null {
  // Bound to no data version (0): alerts and deliveries are account data, not price data.
  return rows.length === limit ? encodeCursor({ dataSet: "live", version: 0 }, kind, rows[rows.length - 1]!.id) : null;
}

function pageStart(cursor: string | undefined, kind: string): number | null {
  if (cursor === undefined) return null;
  return decodeCursor(cursor, { dataSet: "live", version: 0 }, kind, (k): k is number => Number.isSafeInteger(k) && (k as number) > 0);
}

export function listAlerts(service: AlertService, accountId: number, limit: number, cursor?: string) {
  const kind = `alerts:${accountId}:${limit}`;
  const rows = service.alerts.page(accountId, limit, pageStart(cursor, kind));
  return { items: rows.map(alertJson), nextCursor: pageCursor(rows, limit, kind) };
}

export function requireAlert(service: AlertService, accountId: number, publicId: string): Alert {
  const alert = service.alerts.find(accountId, publicId);
  if (!alert) throw new ApiError("alert_not_found", `This account has no alert ${publicId}.`);
  return alert;
}

export function deleteAlert(service: AlertService, accountId: number, publicId: string) {
  if (!service.alerts.delete(accountId, publicId)) throw new ApiError("alert_not_found", `This account has no alert ${publicId}.`);
  return { id: publicId, deleted: true as const };
}

export function listDeliveries(service: AlertService, accountId: number, publicId: string, limit: number, cursor?: string) {
  const alert = requireAlert(service, accountId, publicId);
  const kind = `deliveries:${alert.id}:${limit}`;
  const rows = service.deliveries.page(alert.id, limit, pageStart(cursor, kind));
  return { items: rows.map(deliveryJson), nextCursor: pageCursor(rows, limit, kind) };
}

/**
 * POST /api/v1/alerts/{id}/test/: an event like a real one, built from the current prices, marked
 * `test: true`, logged with the deliveries and attempted once at once; the answer is the attempt's
 * outcome. A success enables a disabled alert again.
 */
export async function sendTestEvent(deps: DataSet, service: AlertService, accountId: number, publicId: string) {
  const alert = requireAlert(service, accountId, publicId);
  const now = deps.now();
  const view = priceView(deps, alert, now);
  const chains = filterChains(view, alert.chainIds);
  const best = chains.length === 0 ? null : Math.min(...chains.map((c) => c.effective));
  const trigger: Trigger = {
    chains: chains.filter((c) => c.effective === best).map((c) => ({ ...c, oldEffective: alert.state?.chains[c.chainId]?.effective ?? null })),
    oldBest: alert.state?.best ?? null,
    newBest: best,
  };
  const eventId = newEventId();
  const payload = eventBody({ eventId, alert, productName: view.product?.name ?? null, trigger, snapshot: deps.data.current, created: now, test: true });
  const delivery = service.deliveries.insert({ eventId, alertId: alert.id, isTest: true, payload, at: service.timers.now() });
  await service.worker.deliverNow(delivery.id);
  return deliveryJson(service.deliveries.byId(delivery.id) ?? delivery);
}
