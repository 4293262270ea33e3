import { escapeHtml as e } from "../../http/encoding/html.ts";
import { strings, type Lang } from "./i18n.ts";
import { renderPage } from "./layout.ts";
import { text } from "./text.ts";

/** Sign-in and sign-up forms (CSRF token from the pre-session cookie). */

export interface AuthFormOptions {
  lang: Lang;
  csrf: string;
  email?: string;
  error?: string;
}

function authForm(kind: "signin" | "signup", o: AuthFormOptions): string {
  const t = strings(o.lang);
  const title = kind === "signin" ? t.signIn : t.signUp;
  const other =
    kind === "signin"
      ? `${text(t.noAccount)} <a href="/portal/signup">${text(t.signUp)}</a>`
      : `${text(t.haveAccount)} <a href="/portal/signin">${text(t.signIn)}</a>`;
  const body = `<div class="card narrow">
<h1>${e(title)}</h1>
${o.error ? `<div class="error" role="alert">${e(o.error)}</div>` : ""}
<form method="post" action="/portal/${kind}">
<input type="hidden" name="csrf" value="${e(o.csrf)}">
<label for="email">${text(t.email)}</label>
<input id="email" name="email" type="email" required maxlength="254" autocomplete="email" value="${e(o.email ?? "")}">
<label for="password">${text(t.password)}</label>
<input id="password" name="password" type="password" required minlength="${kind === "signup" ? 10 : 1}" maxlength="200" autocomplete="${kind === "signup" ? "new-password" : "current-password"}">
${kind === "signup" ? `<div class="hint">${text(t.passwordHint)}</div>` : ""}
<button class="btn" type="submit">${e(title)}</button>
</form>
<p class="hint">${other}</p>
</div>`;
  return renderPage({ lang: o.lang, title, body, path: `/portal/${kind}` });
}

export const signInPage = (o: AuthFormOptions) => authForm("signin", o);
export const signUpPage = (o: AuthFormOptions) => authForm("signup", o);
