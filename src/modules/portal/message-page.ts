import { escapeHtml as e } from "../../http/encoding/html.ts";
import { strings, type Lang } from "./i18n.ts";
import { renderPage } from "./layout.ts";
import { text as rich } from "./text.ts";

/** A short page for refusals (CSRF failure, too many attempts, bad form). */
export function messagePage(lang: Lang, title: string, text: string, back = "/portal/", code?: string): string {
  const t = strings(lang);
  const body = `<div class="card narrow">
<h1>${e(title)}</h1>
<p>${rich(text)}</p>
${code ? `<p class="hint">code: <code id="error-code">${e(code)}</code></p>` : ""}
<a class="btn" href="${e(back)}">${e(t.back)}</a>
</div>`;
  return renderPage({ lang, title, body, path: back });
}
