import { escapeHtml as e } from "../../http/encoding/html.ts";
import { MAX_PASSWORD, MIN_PASSWORD } from "../../accounts/passwords.ts";
import { strings, type Lang } from "./i18n.ts";
import { renderPage } from "./layout.ts";
import { text } from "./text.ts";

/** The signed-in change-password form: the current password, the new one twice. */
export function passwordPage(lang: Lang, csrf: string, error?: string): string {
  const t = strings(lang);
  const field = (id: string, label: string, autocomplete: string, min: number) =>
    `<label for="${id}">${text(label)}</label>
<input id="${id}" name="${id.replace(/-/g, "_")}" type="password" required minlength="${min}" maxlength="${MAX_PASSWORD}" autocomplete="${autocomplete}">`;
  const body = `<div class="card narrow">
<h1>${text(t.changePassword)}</h1>
${error ? `<div class="error" role="alert">${text(error)}</div>` : ""}
<form method="post" action="/portal/password">
<input type="hidden" name="csrf" value="${e(csrf)}">
${field("current-password", t.currentPassword, "current-password", 1)}
${field("new-password", t.newPassword, "new-password", MIN_PASSWORD)}
<div class="hint">${text(t.passwordHint)}</div>
${field("new-password-again", t.newPasswordAgain, "new-password", MIN_PASSWORD)}
<button class="btn" type="submit">${text(t.changePassword)}</button>
</form>
<p class="hint">${text(t.passwordOthersSignedOut)}</p>
<p><a href="/portal/">${text(t.toDashboard)}</a></p>
</div>`;
  return renderPage({ lang, title: t.changePassword, body, path: "/portal/password", csrf });
}
