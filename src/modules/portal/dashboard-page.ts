import { escapeHtml as e } from "../../http/encoding/html.ts";
import { maskedKey, type StoredKey } from "../../accounts/keys.ts";
import type { Plan } from "../../accounts/plans.ts";
import { fill, strings, type Lang, type PortalStrings } from "./i18n.ts";
import { renderPage } from "./layout.ts";
import { usageChart } from "./usage-chart.ts";
import { alertsSection, type PortalAlert } from "./alerts-section.ts";
import { text } from "./text.ts";

/** The UTC date of a stored time: the page shows every date on the quota's (and the chart's) UTC days. */
const utcDay = (iso: string) => new Date(iso).toISOString().slice(0, 10);

/** Everything the signed-in page shows. */
export interface DashboardView {
  lang: Lang;
  csrf: string;
  email: string;
  plan: Plan;
  ratePerMinute: number;
  /** Every plan's limits, the account's own first among equals (the token bucket's burst: burstOf). */
  plans: { plan: Plan; quota: number; ratePerMinute: number; burst: number }[];
  quota: { limit: number; used: number };
  month: string;
  daily: { day: string; count: number }[];
  keys: (StoredKey & { widgetViews?: number })[];
  widgetQuota: number;
  /** The account's price alerts with their latest deliveries. */
  alerts: PortalAlert[];
  /** The create-key form's single-use token (form-tokens.ts). */
  formToken: string;
  notice?: string;
  error?: string;
  /** Keeps what the user typed when the create form is refused. */
  draft?: { kind?: string; name?: string; origins?: string };
}

const csrfField = (csrf: string) => `<input type="hidden" name="csrf" value="${e(csrf)}">`;

function keyRows(v: DashboardView, t: PortalStrings): string {
  const active = v.keys.filter((k) => !k.revokedAt);
  if (active.length === 0) return `<p class="muted">${e(t.noKeys)}</p>`;
  const rows = active
    .map((k) => {
      const main = `<tr data-key-id="${k.id}">
<td><code class="key">${e(maskedKey(k))}</code></td>
<td data-label="${e(t.kind)}">${text(t.kindShort[k.kind])}</td>
<td data-label="${e(t.name)}"><bdi>${e(k.name ?? "")}</bdi></td>
<td class="when" data-label="${e(t.created)}"><span class="hint">${e(utcDay(k.createdAt))}</span></td>
<td class="actions"><a class="btn small danger" href="/portal/keys/${k.id}/revoke">${text(t.revoke)}</a></td>
</tr>`;
      if (k.kind !== "publishable") return main;
      const views = fill(t.widgetViews, { used: k.widgetViews ?? 0, limit: v.widgetQuota });
      return `${main}<tr><td colspan="5">
<form method="post" action="/portal/keys/${k.id}/origins">${csrfField(v.csrf)}
<label for="origins-${k.id}">${text(t.origins)}</label>
<textarea id="origins-${k.id}" name="origins" dir="ltr" placeholder="https://shop.example">${e(k.allowedOrigins.join("\n"))}</textarea>
<div class="hint">${text(t.originsHint)} · ${text(views)}</div>
<button class="btn small" type="submit">${text(t.saveOrigins)}</button>
</form></td></tr>`;
    })
    .join("\n");
  return `<table class="keys"><thead><tr><th>${text(t.key)}</th><th>${text(t.kind)}</th><th>${text(t.name)}</th><th>${text(t.created)}</th><th></th></tr></thead><tbody>${rows}</tbody></table>`;
}

function revokedList(v: DashboardView, t: PortalStrings): string {
  const revoked = v.keys.filter((k) => k.revokedAt);
  if (revoked.length === 0) return "";
  const items = revoked.map((k) => `<li><code class="key">${e(maskedKey(k))}</code> · ${text(t.kindShort[k.kind])} · ${text(t.revoked)} ${e(utcDay(k.revokedAt!))}</li>`).join("");
  return `<details><summary>${text(fill(t.revokedKeys, { count: revoked.length }))}</summary><ul>${items}</ul></details>`;
}

function createForm(v: DashboardView, t: PortalStrings): string {
  const kind = v.draft?.kind ?? "live";
  const options = (["live", "test", "publishable"] as const)
    .map((k) => `<option value="${k}"${k === kind ? " selected" : ""}>${e(t.kinds[k])}</option>`)
    .join("");
  return `<form method="post" action="/portal/keys">${csrfField(v.csrf)}<input type="hidden" name="form_token" value="${e(v.formToken)}">
<div class="row">
<div><label for="kind">${text(t.kind)}</label><select id="kind" name="kind">${options}</select></div>
<div><label for="name">${text(t.name)}</label><input id="name" name="name" type="text" maxlength="80" value="${e(v.draft?.name ?? "")}"></div>
</div>
<label for="new-origins">${text(t.origins)} (<bdi dir="ltr">pk_live_</bdi>)</label>
<textarea id="new-origins" name="origins" dir="ltr" placeholder="https://shop.example">${e(v.draft?.origins ?? "")}</textarea>
<div class="hint">${text(t.originsHint)}</div>
<button class="btn" type="submit">${text(t.create)}</button>
</form>`;
}

/** The account's rate limit as the token bucket applies it, and every plan's limits with how a plan changes. */
function limitsLines(v: DashboardView, t: PortalStrings): string {
  const own = v.plans.find((p) => p.plan === v.plan)!;
  const interval = Math.round((60 / own.ratePerMinute) * 100) / 100;
  const rows = v.plans
    .map((p) => `<tr${p.plan === v.plan ? ' class="current"' : ""} data-plan="${p.plan}"><th scope="row">${text(t.planNames[p.plan])}</th><td>${p.quota.toLocaleString("en-US")}</td><td>${p.ratePerMinute}</td><td>${p.burst}</td></tr>`)
    .join("");
  return `<p id="rate-line" data-rate="${own.ratePerMinute}" data-burst="${own.burst}">${text(fill(t.rateLine, { rate: own.ratePerMinute, burst: own.burst }))}.</p>
<p class="hint">${text(fill(t.burstHint, { interval }))}</p>
<details id="plans"><summary>${text(t.plansTitle)}</summary>
<table class="plans"><thead><tr><th></th><th>${text(t.plansQuota)}</th><th>${text(t.plansRate)}</th><th>${text(t.plansBurst)}</th></tr></thead><tbody>${rows}</tbody></table>
</details>
<p class="hint" id="upgrade">${text(fill(t.upgradeNote, { email: v.email }))}</p>`;
}

export function dashboardPage(v: DashboardView): string {
  const t = strings(v.lang);
  const remaining = Math.max(0, v.quota.limit - v.quota.used);
  const percent = v.quota.limit > 0 ? Math.min(100, Math.round((v.quota.used / v.quota.limit) * 100)) : 100;
  const total = v.daily.reduce((sum, d) => sum + d.count, 0);
  const body = `<h1>${text(t.title)}</h1>
${v.notice ? `<div class="notice" role="status">${text(v.notice)}</div>` : ""}
${v.error ? `<div class="error" role="alert">${text(v.error)}</div>` : ""}
<div class="row">
<section class="card" id="account"><h2>${text(t.account)}</h2>
<p><bdi>${e(v.email)}</bdi></p>
<p>${text(t.plan)}: <span class="plan" id="plan" data-plan="${v.plan}">${text(t.planNames[v.plan])}</span></p>
${limitsLines(v, t)}
<p><a href="/portal/password">${text(t.changePassword)}</a></p>
</section>
<section class="card" id="quota"><h2>${text(t.quotaTitle)}</h2>
<p id="quota-line" data-used="${v.quota.used}" data-limit="${v.quota.limit}">${text(fill(t.quotaLine, { used: v.quota.used, limit: v.quota.limit, remaining }))}</p>
<div class="meter" aria-hidden="true"><span style="width:${percent}%"></span></div>
<p class="hint">${text(t.testNotCounted)}</p>
</section>
</div>
<section class="card" id="usage"><h2>${text(t.usageTitle)}</h2>
${usageChart(v.daily, fill(t.usageChartLabel, { month: v.month, total }))}
</section>
<section class="card" id="keys"><h2>${text(t.keys)}</h2>
${keyRows(v, t)}
${revokedList(v, t)}
</section>
<section class="card" id="create"><h2>${text(t.createKey)}</h2>
${createForm(v, t)}
</section>
${alertsSection(v.plan, v.alerts, t)}
<section class="card" id="test-mode"><h2>${text(t.testModeTitle)}</h2>
<p class="hint">${text(t.testModeText)}</p>
</section>`;
  return renderPage({ lang: v.lang, title: t.title, body, path: "/portal/", csrf: v.csrf });
}
