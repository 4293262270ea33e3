import { escapeHtml as e } from "../../http/encoding/html.ts";
import { maskedKey, type StoredKey } from "../../accounts/keys.ts";
import { fill, ltr, strings, type Lang } from "./i18n.ts";
import { renderPage } from "./layout.ts";
import { text } from "./text.ts";

/**
 * The confirmation step before a key is revoked (no script: a page of its own). Only its form,
 * with `confirm=yes`, revokes; "keep it" goes back to the dashboard.
 */
export function revokePage(lang: Lang, key: StoredKey, csrf: string): string {
  const t = strings(lang);
  const name = key.name ? ` · ${key.name}` : "";
  const body = `<div class="card narrow" id="revoke-confirm">
<h1>${text(t.revokeTitle)}</h1>
<p>${text(fill(t.revokeText, { key: ltr(maskedKey(key)), kind: t.kindShort[key.kind], name }))}</p>
<form method="post" action="/portal/keys/${key.id}/revoke">
<input type="hidden" name="csrf" value="${e(csrf)}">
<input type="hidden" name="confirm" value="yes">
<button class="btn danger" type="submit">${text(t.revokeConfirm)}</button>
</form>
<p><a class="btn secondary" href="/portal/">${text(t.keepKey)}</a></p>
</div>`;
  return renderPage({ lang, title: t.revokeTitle, body, path: `/portal/keys/${key.id}/revoke`, csrf });
}
