import { escapeHtml as e } from "../http/html.ts";
import type { StoredKey } from "../http/access/keys.ts";
import { strings, type Lang } from "./i18n.ts";
import { renderPage } from "./layout.ts";

/** The one page that ever shows a key in full (the answer to the create form; not stored). */
export function keyCreatedPage(lang: Lang, key: string, record: StoredKey, csrf: string): string {
  const t = strings(lang);
  const use =
    record.kind === "publishable"
      ? `${e(t.publishableKeyUse)}<a href="/widget/v1/demo.html?key=${encodeURIComponent(key)}">${e(t.tryWidget)}</a>`
      : e(t.secretKeyUse);
  const body = `<div class="card">
<h1>${e(t.newKeyTitle)} <span class="plan">${e(t.kindShort[record.kind])}</span></h1>
<p>${e(t.newKeyText)}</p>
<code class="newkey" id="new-key" data-kind="${e(record.kind)}">${e(key)}</code>
<p class="hint">${use}</p>
<a class="btn" href="/portal/">${e(t.toDashboard)}</a>
</div>`;
  return renderPage({ lang, title: t.newKeyTitle, body, path: "/portal/", csrf });
}
