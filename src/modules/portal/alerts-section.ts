import { escapeHtml as e } from "../../http/encoding/html.ts";
import type { alertJson, deliveryJson } from "../alerts/service.ts";
import type { Plan } from "../../accounts/plans.ts";
import { fill, type PortalStrings } from "./i18n.ts";

/** An alert as the portal lists it, with its latest deliveries. */
export interface PortalAlert {
  alert: ReturnType<typeof alertJson>;
  deliveries: ReturnType<typeof deliveryJson>[];
}

/** Deliveries shown per alert (the API's /deliveries/ has the whole log). */
export const PORTAL_DELIVERIES = 10;

function conditionText(c: PortalAlert["alert"]["condition"], t: PortalStrings): string {
  if ("below_ils" in c) return fill(t.conditions.below, { amount: c.below_ils });
  if ("drop_pct" in c) return fill(t.conditions.drop, { pct: c.drop_pct });
  return t.conditions.promotion;
}

const time = (iso: string | null) => (iso ? `<span class="hint" dir="ltr">${e(iso.slice(0, 16).replace("T", " "))}</span>` : "—");

function deliveryTable(list: PortalAlert["deliveries"], t: PortalStrings): string {
  if (list.length === 0) return `<p class="muted">${e(t.noDeliveries)}</p>`;
  const rows = list
    .map(
      (d) => `<tr data-event-id="${e(d.event_id)}" data-status="${d.status}">
<td><code>${e(d.event_id)}</code>${d.test ? ` <span class="hint">(${e(t.testEvent)})</span>` : ""}</td>
<td>${e(t.deliveryStatuses[d.status])}</td>
<td>${d.attempts}</td>
<td>${d.last_response_code ?? (d.last_error ? `<span class="hint">${e(d.last_error)}</span>` : "—")}</td>
<td>${time(d.next_retry_at)}</td>
<td>${time(d.created_at)}</td>
</tr>`,
    )
    .join("\n");
  return `<table><thead><tr><th>${e(t.event)}</th><th>${e(t.alertStatus)}</th><th>${e(t.attempts)}</th><th>${e(t.response)}</th><th>${e(t.nextRetry)}</th><th>${e(t.created)}</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** The dashboard's price alerts card: each alert, its state, and its latest deliveries. Read-only (the API manages alerts). */
export function alertsSection(plan: Plan, alerts: PortalAlert[], t: PortalStrings): string {
  if (plan !== "pro" && alerts.length === 0) return `<section class="card" id="alerts"><h2>${e(t.alertsTitle)}</h2><p class="muted">${e(t.alertsProOnly)}</p></section>`;
  const items = alerts
    .map(({ alert: a, deliveries }) => {
      const price = a.last_evaluation?.effective_price_ils;
      const product = `<code>${e(a.barcode)}</code>${a.chain_id ? ` <span class="hint">(${e(a.chain_id)})</span>` : ""}${a.city ? ` · <bdi>${e(a.city)}</bdi>` : ""}${a.chain_ids.length > 0 ? ` · <span class="hint">${e(a.chain_ids.join(", "))}</span>` : ""}`;
      return `<article class="alert" data-alert-id="${e(a.id)}" data-status="${a.status}">
<table><tbody>
<tr><th scope="row">${e(t.alertProduct)}</th><td>${product}</td></tr>
<tr><th scope="row">${e(t.alertCondition)}</th><td>${e(conditionText(a.condition, t))}</td></tr>
<tr><th scope="row">${e(t.alertUrl)}</th><td><code>${e(a.url)}</code></td></tr>
<tr><th scope="row">${e(t.alertStatus)}</th><td>${e(t.alertStatuses[a.status])}${a.disabled_reason ? ` — <span class="error-text">${e(a.disabled_reason)}</span>` : ""}</td></tr>
<tr><th scope="row">${e(t.alertLastPrice)}</th><td>${price ? `<bdi dir="ltr">₪${e(price)}</bdi>` : "—"}</td></tr>
</tbody></table>
<details${deliveries.some((d) => d.status !== "succeeded") ? " open" : ""}><summary>${e(fill(t.deliveriesTitle, { count: deliveries.length }))} · <code>${e(a.id)}</code></summary>
${deliveryTable(deliveries, t)}
</details>
</article>`;
    })
    .join("\n");
  const body = alerts.length === 0 ? `<p class="muted">${e(t.noAlerts)}</p>` : items;
  return `<section class="card" id="alerts"><h2>${e(t.alertsTitle)}</h2><p class="hint">${e(t.alertsHint)}</p>${body}</section>`;
}
