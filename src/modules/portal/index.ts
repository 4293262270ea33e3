import { Elysia } from "elysia";
import type { Feature } from "../feature.ts";
import type { Services } from "../../services.ts";
import { requestState } from "../../http/request/request-state.ts";
import { AccountError, createAccount, findAccountByEmail, findAccountById, normaliseEmail, PLANS, setPasswordHash } from "../../accounts/accounts.ts";
import { createKey, findKey, listKeys, maskedKey, revokeKeyById, setAllowedOrigins } from "../../accounts/keys.ts";
import type { KeyKind } from "../../accounts/key-format.ts";
import { parseOriginList } from "../../accounts/origins.ts";
import { planQuota, planRate } from "../../accounts/plan-limits.ts";
import { burstOf } from "../../access/token-bucket.ts";
import { accountSubject, widgetSubject } from "../../access/quota-ledger.ts";
import { monthOf } from "../../accounts/utc-month.ts";
import { cameOverHttps, clientAddress, type PeerSource } from "../../http/request/client-address.ts";
import { AttemptLimiter, reserveAttempt } from "./attempt-limiter.ts";
import { HashingGate } from "./hashing-gate.ts";
import { clearCookie, readCookies, setCookie } from "./cookies.ts";
import { readForm } from "./form.ts";
import { fromOwnPages } from "./form-origin.ts";
import { fill, isLang, ltr, strings, type Lang } from "./i18n.ts";
import type { Plan } from "../../accounts/plans.ts";
import { PAGE_HEADERS } from "./layout.ts";
import { signInPage, signUpPage } from "./auth-pages.ts";
import { dashboardPage, type DashboardView } from "./dashboard-page.ts";
import { keyCreatedPage } from "./key-created-page.ts";
import { messagePage } from "./message-page.ts";
import { issueFormToken, useFormToken } from "./form-tokens.ts";
import { passwordPage } from "./password-page.ts";
import { explorePage, productPage } from "./explore-pages.ts";
import { exploreView, productView } from "./explore.ts";
import { ApiError } from "../../errors/api-error.ts";
import { revokePage } from "./revoke-page.ts";
import { createSession, deleteOtherSessions, deleteSession, findSession, SESSION_COOKIE, SESSION_DAYS, type Session } from "./sessions.ts";
import { randomToken, sameSecret } from "./tokens.ts";
import { alertJson, deliveryJson, MAX_ALERTS_PER_ACCOUNT } from "../alerts/service.ts";
import { PORTAL_DELIVERIES, type PortalAlert } from "./alerts-section.ts";
import { hashPassword, MAX_PASSWORD, MIN_PASSWORD, verifyPassword } from "../../accounts/passwords.ts";

const LANG_COOKIE = "mehir_lang";
/** Pre-session CSRF token (double-submit) for the sign-in and sign-up forms. */
const FORM_COOKIE = "mehir_csrf";
export const MAX_ACTIVE_KEYS = 50;
const KINDS: readonly KeyKind[] = ["live", "test", "publishable"];

/** What every portal handler needs to know about the request. */
interface Visit {
  request: Request;
  lang: Lang;
  cookies: Map<string, string>;
  secure: boolean;
  address: string;
  session: Session | null;
  /** Set-Cookie values to send with the answer. */
  setCookies: string[];
}

/**
 * The developer portal at /portal/: server-rendered pages in Hebrew (default) and English,
 * sign-up/in/out, keys of the three kinds, a publishable key's allowed origins, plan and this
 * month's usage. Sessions: HttpOnly SameSite=Lax cookie (Secure over https), token stored hashed;
 * a CSRF token on every form, and posts from other sites refused (form-origin.ts); sign-in and sign-up attempts limited (see below) and their password
 * hashing bounded (HashingGate).
 *
 * Failed sign-ins are limited per address (10 per 15 minutes, whatever the emails) and per address
 * and email (5). Deliberately none per email across addresses: such a limit is reached by whoever
 * guesses, so it locks the owner out from everywhere (audit F6); a clean address always gets its
 * tries. Each attempt is counted before its password is checked, and taken back if it succeeds.
 * The change-password form's current password is limited the same way, per address and per account.
 */
export function portalModule(deps: Pick<Services, "settings" | "db" | "now" | "access" | "alerts" | "dataSets">) {
  const db = deps.db.accounts;
  const { access } = deps;
  const signinByAddress = new AttemptLimiter(10);
  const signinByAddressAndEmail = new AttemptLimiter(5);
  const signupByAddress = new AttemptLimiter(5);
  /** Wrong current passwords in the change-password form, per account (a stolen session cannot guess on). */
  const passwordByAccount = new AttemptLimiter(5);
  const hashing = new HashingGate();
  let dummyHash: Promise<string> | null = null;
  /** Verifying against a throwaway hash for unknown emails keeps sign-in timing the same. */
  const dummy = () => (dummyHash ??= hashPassword(randomToken()));

  function visit(request: Request, server: unknown): Visit {
    const cookies = readCookies(request);
    const secure = cameOverHttps(request, deps.settings.trustProxy);
    const setCookies: string[] = [];
    const asked = new URL(request.url).searchParams.get("lang");
    let lang: Lang = "he";
    if (isLang(asked)) {
      lang = asked;
      setCookies.push(setCookie(LANG_COOKIE, asked, { secure, maxAge: 365 * 86_400 }));
    } else if (isLang(cookies.get(LANG_COOKIE))) {
      lang = cookies.get(LANG_COOKIE) as Lang;
    }
    return {
      request,
      lang,
      cookies,
      secure,
      address: clientAddress(request, server as PeerSource | null, deps.settings.trustProxy),
      session: findSession(db, cookies.get(SESSION_COOKIE), deps.now()),
      setCookies,
    };
  }

  function html(v: Visit, body: string, status = 200, extra: Record<string, string> = {}): Response {
    const headers = new Headers({ ...PAGE_HEADERS, ...extra, "x-request-id": requestState(v.request).id });
    for (const cookie of v.setCookies) headers.append("set-cookie", cookie);
    return new Response(body, { status, headers });
  }

  function redirect(v: Visit, location: string): Response {
    const headers = new Headers({ location, "cache-control": "no-store", "x-request-id": requestState(v.request).id });
    for (const cookie of v.setCookies) headers.append("set-cookie", cookie);
    return new Response(null, { status: 303, headers });
  }

  function csrfFailed(v: Visit): Response {
    const t = strings(v.lang);
    return html(v, messagePage(v.lang, t.csrfTitle, t.csrfText, "/portal/", "csrf_failed"), 403);
  }

  function badForm(v: Visit, status: number): Response {
    const t = strings(v.lang);
    return html(v, messagePage(v.lang, t.formError, `HTTP ${status}`), status);
  }

  /** The pre-session form token: the cookie's, or a new one set now. */
  function formToken(v: Visit): string {
    const existing = v.cookies.get(FORM_COOKIE);
    if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
    const token = randomToken();
    v.setCookies.push(setCookie(FORM_COOKIE, token, { secure: v.secure }));
    v.cookies.set(FORM_COOKIE, token);
    return token;
  }

  function signIn(v: Visit, accountId: number): Response {
    if (v.session) deleteSession(db, v.session.tokenHash);
    const { token } = createSession(db, accountId, deps.now());
    v.setCookies.push(setCookie(SESSION_COOKIE, token, { secure: v.secure, maxAge: SESSION_DAYS * 86_400 }));
    return redirect(v, "/portal/");
  }

  function tooMany(v: Visit, seconds: number, back: string): Response {
    const t = strings(v.lang);
    const text = fill(t.tooManyAttempts, { minutes: Math.max(1, Math.ceil(seconds / 60)) });
    return html(v, messagePage(v.lang, t.tooManyAttempts.split(".")[0]!, text, back, "rate_limited"), 429, { "retry-after": String(seconds) });
  }

  async function dashboard(v: Visit, session: Session, extra: Partial<DashboardView> = {}, status = 200): Promise<Response> {
    const account = findAccountById(db, session.accountId);
    if (!account) return redirect(v, "/portal/signin");
    const now = deps.now();
    const subject = accountSubject(account.id);
    const keys = await Promise.all(
      listKeys(db, account.id).map(async (k) =>
        k.kind === "publishable" && !k.revokedAt ? { ...k, widgetViews: await access.quota.usedThisMonth(widgetSubject(k.id), now) } : k,
      ),
    );
    const t = strings(v.lang);
    const done = new URL(v.request.url).searchParams.get("done");
    const view: DashboardView = {
      lang: v.lang,
      csrf: session.csrf,
      email: account.email,
      plan: account.plan,
      ratePerMinute: planRate(deps.settings, account.plan),
      plans: PLANS.map((plan) => ({ plan, quota: planQuota(deps.settings, plan), ratePerMinute: planRate(deps.settings, plan), burst: burstOf(planRate(deps.settings, plan)) })),
      quota: { limit: planQuota(deps.settings, account.plan), used: await access.quota.usedThisMonth(subject, now) },
      month: monthOf(now),
      daily: await access.quota.dailyUsage(subject, now),
      keys,
      widgetQuota: deps.settings.widgetQuota,
      alerts: accountAlerts(account.id),
      formToken: issueFormToken(db, account.id, now),
      notice: done === "revoked" || done === "origins" || done === "password" ? t.done[done] : undefined,
      ...extra,
    };
    return html(v, dashboardPage(view), status);
  }

  function accountAlerts(accountId: number): PortalAlert[] {
    const service = deps.alerts;
    return service.alerts.page(accountId, MAX_ALERTS_PER_ACCOUNT, null).map((a) => ({
      alert: alertJson(a),
      deliveries: service.deliveries.page(a.id, PORTAL_DELIVERIES, null).map(deliveryJson),
    }));
  }

  /**
   * The explorer's pages, for signed-in accounts: each view takes a token of the account's own
   * bucket at its plan's rate (not the monthly quota), so the explorer is no faster a way to the
   * data than the API. Answers the page, or a redirect / 429 page.
   */
  async function explorer(v: Visit, page: (base: { lang: Lang; csrf: string; email: string; plan: Plan }) => string | Promise<string>): Promise<Response> {
    if (!v.session) return redirect(v, "/portal/signin");
    const account = findAccountById(db, v.session.accountId);
    if (!account) return redirect(v, "/portal/signin");
    const verdict = await access.limiter.take(`explorer:${account.id}`, planRate(deps.settings, account.plan));
    if (!verdict.allowed) return tooMany(v, verdict.retryAfter, "/portal/explore");
    const t = strings(v.lang);
    try {
      return html(v, await page({ lang: v.lang, csrf: v.session.csrf, email: account.email, plan: account.plan }));
    } catch (error) {
      if (!(error instanceof ApiError) || (error.status >= 500 && error.code !== "data_not_ready")) throw error;
      const text = error.code === "product_not_found" ? t.productNotFound : error.code === "data_not_ready" ? t.noData : error.message;
      return html(v, messagePage(v.lang, t.explore, text, "/portal/explore", error.code), error.status);
    }
  }

  /** The account's key of a path's `:id`, when it exists and is not revoked. */
  function ownActiveKey(idText: string, accountId: number) {
    const id = Number(idText);
    const key = Number.isSafeInteger(id) ? findKey(db, id) : null;
    return key && key.accountId === accountId && !key.revokedAt ? key : null;
  }

  /** Reads a signed-in form: the session and its CSRF token must match, else a refusal page. */
  async function signedInForm(v: Visit): Promise<{ session: Session; form: URLSearchParams } | Response> {
    const read = await readForm(v.request);
    if (!read.ok) return badForm(v, read.status);
    if (!v.session) return redirect(v, "/portal/signin");
    if (!fromOwnPages(v.request, deps.settings.trustProxy) || !sameSecret(read.form.get("csrf"), v.session.csrf)) return csrfFailed(v);
    return { session: v.session, form: read.form };
  }

  return new Elysia({ name: "module.portal" })
    .get("/portal", ({ request, server }) => {
      const v = visit(request, server);
      return v.session ? dashboard(v, v.session) : redirect(v, "/portal/signin");
    }, { detail: { hide: true } })
    .get("/portal/signin", ({ request, server }) => {
      const v = visit(request, server);
      if (v.session) return redirect(v, "/portal/");
      return html(v, signInPage({ lang: v.lang, csrf: formToken(v) }));
    }, { detail: { hide: true } })
    .get("/portal/signup", ({ request, server }) => {
      const v = visit(request, server);
      if (v.session) return redirect(v, "/portal/");
      return html(v, signUpPage({ lang: v.lang, csrf: formToken(v) }));
    }, { detail: { hide: true } })
    .post("/portal/signin", async ({ request, server }) => {
      const v = visit(request, server);
      const read = await readForm(request);
      if (!read.ok) return badForm(v, read.status);
      if (!fromOwnPages(request, deps.settings.trustProxy) || !sameSecret(read.form.get("csrf"), v.cookies.get(FORM_COOKIE))) return csrfFailed(v);
      const t = strings(v.lang);
      const email = (read.form.get("email") ?? "").trim().toLowerCase().slice(0, 254);
      const password = read.form.get("password") ?? "";
      const pair = `${v.address} ${email}`;
      const reserved = reserveAttempt([[signinByAddress, v.address], [signinByAddressAndEmail, pair]], deps.now().getTime());
      if ("wait" in reserved) return tooMany(v, reserved.wait, "/portal/signin");
      const account = findAccountByEmail(db, email);
      const verified = await hashing.run(v.address, async () => verifyPassword(password, account?.passwordHash ?? (await dummy())));
      if (verified === null) {
        reserved.release();
        return tooMany(v, 1, "/portal/signin");
      }
      if (!verified || !account?.passwordHash) {
        return html(v, signInPage({ lang: v.lang, csrf: formToken(v), email, error: t.badCredentials }), 401);
      }
      reserved.release();
      signinByAddressAndEmail.clear(pair);
      return signIn(v, account.id);
    }, { parse: "none", detail: { hide: true } })
    .post("/portal/signup", async ({ request, server }) => {
      const v = visit(request, server);
      const read = await readForm(request);
      if (!read.ok) return badForm(v, read.status);
      if (!fromOwnPages(request, deps.settings.trustProxy) || !sameSecret(read.form.get("csrf"), v.cookies.get(FORM_COOKIE))) return csrfFailed(v);
      const t = strings(v.lang);
      const typed = (read.form.get("email") ?? "").slice(0, 254);
      const password = read.form.get("password") ?? "";
      const again = (error: string, status = 400) => html(v, signUpPage({ lang: v.lang, csrf: formToken(v), email: typed, error }), status);
      let email: string;
      try {
        email = normaliseEmail(typed);
      } catch {
        return again(t.badEmail);
      }
      if (password.length < MIN_PASSWORD) return again(t.shortPassword);
      if (password.length > MAX_PASSWORD) return again(t.longPassword);
      // Every sign-up counts (5 per 15 minutes per address), counted before the password is hashed.
      const reserved = reserveAttempt([[signupByAddress, v.address]], deps.now().getTime());
      if ("wait" in reserved) return tooMany(v, reserved.wait, "/portal/signup");
      if (findAccountByEmail(db, email)) return again(t.emailTaken, 409);
      const passwordHash = await hashing.run(v.address, () => hashPassword(password));
      if (passwordHash === null) {
        reserved.release();
        return tooMany(v, 1, "/portal/signup");
      }
      try {
        const account = createAccount(db, { email, passwordHash }, deps.now());
        return signIn(v, account.id);
      } catch (error) {
        if (error instanceof AccountError) return again(t.emailTaken, 409);
        throw error;
      }
    }, { parse: "none", detail: { hide: true } })
    .post("/portal/signout", async ({ request, server }) => {
      const v = visit(request, server);
      const got = await signedInForm(v);
      if (got instanceof Response) return got;
      deleteSession(db, got.session.tokenHash);
      v.setCookies.push(clearCookie(SESSION_COOKIE, v.secure));
      return redirect(v, "/portal/signin");
    }, { parse: "none", detail: { hide: true } })
    .post("/portal/keys", async ({ request, server }) => {
      const v = visit(request, server);
      const got = await signedInForm(v);
      if (got instanceof Response) return got;
      const t = strings(v.lang);
      const kind = got.form.get("kind") as KeyKind;
      const name = got.form.get("name") ?? "";
      const originsText = got.form.get("origins") ?? "";
      const draft = { kind, name, origins: originsText };
      if (!KINDS.includes(kind)) return dashboard(v, got.session, { error: t.formError, draft }, 400);
      const active = listKeys(db, got.session.accountId).filter((k) => !k.revokedAt).length;
      if (active >= MAX_ACTIVE_KEYS) return dashboard(v, got.session, { error: fill(t.tooManyKeys, { max: MAX_ACTIVE_KEYS }), draft }, 400);
      // Origins apply to publishable keys only; the field is ignored for secret keys.
      const origins = kind === "publishable" ? parseOriginList([originsText]) : { ok: true as const, origins: [] as string[] };
      if (!origins.ok) return dashboard(v, got.session, { error: fill(t.badOrigin, { value: origins.invalid }), draft }, 400);
      // One form, one key: the form's token is used once; a repeated post learns which key it made.
      const accountId = got.session.accountId;
      const use = useFormToken(db, got.form.get("form_token"), accountId, deps.now(), () => {
        const made = createKey(db, { accountId, kind, name, origins: origins.origins }, deps.now());
        return { keyId: made.record.id, result: made };
      });
      if (use.outcome === "invalid") return dashboard(v, got.session, { error: t.formExpired, draft }, 400);
      if (use.outcome === "used") {
        const first = findKey(db, use.keyId);
        const text = first ? fill(t.formUsedText, { key: ltr(maskedKey(first)), kind: t.kindShort[first.kind] }) : t.formUsedTitle;
        return html(v, messagePage(v.lang, t.formUsedTitle, text, "/portal/", "form_already_used"), 409);
      }
      return html(v, keyCreatedPage(v.lang, use.result.key, use.result.record, got.session.csrf));
    }, { parse: "none", detail: { hide: true } })
    .get("/portal/keys/:id/revoke", ({ request, server, params }) => {
      const v = visit(request, server);
      if (!v.session) return redirect(v, "/portal/signin");
      const key = ownActiveKey(params.id, v.session.accountId);
      if (!key) return dashboard(v, v.session, { error: strings(v.lang).notFound }, 404);
      return html(v, revokePage(v.lang, key, v.session.csrf));
    }, { detail: { hide: true } })
    .post("/portal/keys/:id/revoke", async ({ request, server, params }) => {
      const v = visit(request, server);
      const got = await signedInForm(v);
      if (got instanceof Response) return got;
      const key = ownActiveKey(params.id, got.session.accountId);
      if (!key) return dashboard(v, got.session, { error: strings(v.lang).notFound }, 404);
      // Only the confirmation page's form revokes; any other post is shown that page first.
      if (got.form.get("confirm") !== "yes") return html(v, revokePage(v.lang, key, got.session.csrf));
      revokeKeyById(db, key.id, deps.now(), got.session.accountId);
      access.keys.invalidate();
      return redirect(v, "/portal/?done=revoked");
    }, { parse: "none", detail: { hide: true } })
    .get("/portal/explore", ({ request, server }) => {
      const v = visit(request, server);
      const q = (new URL(request.url).searchParams.get("q") ?? "").trim();
      const t = strings(v.lang);
      return explorer(v, async (base) => explorePage(await exploreView(deps.dataSets.live, base, q, { noData: t.noData, invalid: t.noResults })));
    }, { detail: { hide: true } })
    .get("/portal/explore/product", ({ request, server }) => {
      const v = visit(request, server);
      const params = new URL(request.url).searchParams;
      const barcode = params.get("barcode")?.trim();
      if (!barcode) return redirect(v, "/portal/explore");
      const chainId = params.get("chain_id") || undefined;
      const stores = params.get("stores") || undefined;
      return explorer(v, (base) => productPage(productView(deps.dataSets.live, base, barcode, chainId, stores)));
    }, { detail: { hide: true } })
    .get("/portal/password", ({ request, server }) => {
      const v = visit(request, server);
      if (!v.session) return redirect(v, "/portal/signin");
      return html(v, passwordPage(v.lang, v.session.csrf));
    }, { detail: { hide: true } })
    .post("/portal/password", async ({ request, server }) => {
      const v = visit(request, server);
      const got = await signedInForm(v);
      if (got instanceof Response) return got;
      const t = strings(v.lang);
      const again = (error: string, status = 400) => html(v, passwordPage(v.lang, got.session.csrf, error), status);
      const current = got.form.get("current_password") ?? "";
      const next = got.form.get("new_password") ?? "";
      if (next.length < MIN_PASSWORD) return again(t.shortPassword);
      if (next.length > MAX_PASSWORD) return again(t.longPassword);
      if (next !== (got.form.get("new_password_again") ?? "")) return again(t.passwordsDiffer);
      const account = findAccountById(db, got.session.accountId);
      const stored = account && findAccountByEmail(db, account.email);
      if (!stored) return redirect(v, "/portal/signin");
      const accountKey = String(stored.id);
      const reserved = reserveAttempt([[signinByAddress, v.address], [passwordByAccount, accountKey]], deps.now().getTime());
      if ("wait" in reserved) return tooMany(v, reserved.wait, "/portal/password");
      const verified = await hashing.run(v.address, async () => verifyPassword(current, stored.passwordHash ?? (await dummy())));
      if (verified === null) {
        reserved.release();
        return tooMany(v, 1, "/portal/password");
      }
      if (!verified || !stored.passwordHash) return again(t.wrongCurrentPassword, 401);
      reserved.release();
      const passwordHash = await hashing.run(v.address, () => hashPassword(next));
      if (passwordHash === null) return tooMany(v, 1, "/portal/password");
      setPasswordHash(db, stored.email, passwordHash);
      deleteOtherSessions(db, stored.id, got.session.tokenHash);
      passwordByAccount.clear(accountKey);
      return redirect(v, "/portal/?done=password");
    }, { parse: "none", detail: { hide: true } })
    .post("/portal/keys/:id/origins", async ({ request, server, params }) => {
      const v = visit(request, server);
      const got = await signedInForm(v);
      if (got instanceof Response) return got;
      const t = strings(v.lang);
      const id = Number(params.id);
      const origins = parseOriginList([got.form.get("origins") ?? ""]);
      if (!origins.ok) return dashboard(v, got.session, { error: fill(t.badOrigin, { value: origins.invalid }) }, 400);
      if (!Number.isSafeInteger(id) || !setAllowedOrigins(db, id, got.session.accountId, origins.origins)) {
        return dashboard(v, got.session, { error: t.notFound }, 404);
      }
      access.keys.invalidate();
      return redirect(v, "/portal/?done=origins");
    }, { parse: "none", detail: { hide: true } });
}

/** The developer portal: sign-up, sign-in, keys and alerts, as HTML pages for people (no operations: the document leaves it out). */
export const portalFeature: Feature = {
  name: "portal",
  routes: ({ services }) => portalModule(services),
};
