import { escapeHtml as e } from "../../http/encoding/html.ts";
import type { StoredKey } from "../../accounts/keys.ts";
import { strings, type Lang } from "./i18n.ts";
import { renderPage } from "./layout.ts";
import { text } from "./text.ts";

/** The one page that ever shows a key in full (the answer to the create form; not stored). */
export function keyCreatedPage(lang: Lang, key: string, record: StoredKey, csrf: string): string {
  const t = strings(lang);
  const use =
    record.kind === "publishable"
      ? `${text(t.publishableKeyUse)}<a href="/widget/v1/demo.html?key=${encodeURIComponent(key)}">${text(t.tryWidget)}</a>`
      : text(t.secretKeyUse);
  const body = `<div class="card">
<h1>${text(t.newKeyTitle)} <span class="plan">${text(t.kindShort[record.kind])}</span></h1>
<p>${text(t.newKeyText)}</p>
<code class="newkey" id="new-key" data-kind="${e(record.kind)}">${e(key)}</code>
<p class="hint">${use}</p>
<a class="btn" href="/portal/">${text(t.toDashboard)}</a>
</div>`;
  return renderPage({ lang, title: t.newKeyTitle, body, path: "/portal/", csrf });
}
