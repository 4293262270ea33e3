/**
 * The developer portal in a real browser: headless Chromium (Debian's package) driven by
 * playwright-core against the app listening on a loopback port. Signs up, creates a live key,
 * reads it from the page and uses it against the API; then a publishable key limited to one
 * origin, used by real cross-origin fetches (allowed, refused, allowed after editing its origins
 * in the portal), and the live key revoked from the portal. Skips, saying why, without /usr/bin/chromium.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { testApp } from "../helpers/app.ts";
import { importMilk, MILK } from "../helpers/access.ts";
import { chromiumFor, launchChromium } from "../helpers/chromium.ts";

const hasChromium = chromiumFor("portal");

/** Screenshots land here (kept after the run for a look). */
export const SHOTS = join(tmpdir(), "mehir-portal-e2e-shots");

let temp: string;
let context: BrowserContext;
let page: Page;
let ctx: ReturnType<typeof testApp>;
let origin: string;
/** The live key the first test creates (the second revokes it). */
let liveKey = "";

describe.skipIf(!hasChromium)("portal in headless Chromium", () => {
  beforeAll(async () => {
    temp = mkdtempSync(join(tmpdir(), "mehir-portal-e2e-"));
    ctx = testApp();
    importMilk(ctx);
    ctx.app.listen({ port: 0, hostname: "127.0.0.1" });
    origin = `http://127.0.0.1:${ctx.app.server!.port}`;
    context = await launchChromium(join(temp, "profile"), { width: 1100, height: 1300 });
    page = context.pages()[0] ?? (await context.newPage());
  }, 30_000);

  afterAll(async () => {
    await context?.close();
    await ctx?.app.stop();
    if (temp) rmSync(temp, { recursive: true, force: true });
  });

  test("sign up, create a live key, use it against the API", async () => {
    await page.goto(`${origin}/portal/`);
    expect(page.url()).toBe(`${origin}/portal/signin`);
    expect(await page.getAttribute("html", "dir")).toBe("rtl");
    await page.click('a[href="/portal/signup"]');
    await page.fill("#email", "browser@example.com");
    await page.fill("#password", "a long enough password");
    await Promise.all([page.waitForURL(`${origin}/portal/`), page.click('button[type="submit"].btn')]);
    expect(await page.textContent("#account")).toContain("browser@example.com");
    expect(await page.getAttribute("#plan", "data-plan")).toBe("free");

    // The session cookie is HttpOnly: page scripts cannot read it.
    expect(await page.evaluate(() => document.cookie)).not.toContain("mehir_session");
    const cookies = await context.cookies(`${origin}/portal/`);
    expect(cookies.find((c) => c.name === "mehir_session")).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/portal" });

    await page.selectOption("#kind", "live");
    await page.fill("#name", "e2e");
    await page.click('#create button[type="submit"]');
    const key = (await page.textContent("#new-key"))!.trim();
    expect(key).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
    liveKey = key;

    const res = await fetch(`${origin}/api/v1/chains/`, { headers: { "x-api-key": key } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-quota-limit")).toBe("200");
    expect(res.headers.get("x-quota-remaining")).toBe("199");
    expect(res.headers.get("x-ratelimit-limit")).toBe("60");
    const body = (await res.json()) as { meta: { quota_remaining: number } };
    expect(body.meta.quota_remaining).toBe(199);

    // The portal's CSP lets its pages fetch nothing; from another page of the origin (no CORS involved):
    expect(await page.evaluate(() => fetch("/healthz").then(() => "fetched", () => "blocked"))).toBe("blocked");
    await page.goto(`${origin}/healthz`);
    const inPage = await page.evaluate(async (k) => {
      const r = await fetch("/api/v1/chains/", { headers: { "X-API-Key": k } });
      return { status: r.status, remaining: r.headers.get("x-quota-remaining") };
    }, key);
    expect(inPage).toEqual({ status: 200, remaining: "198" });

    await page.goto(`${origin}/portal/`);
    expect(await page.getAttribute("#quota-line", "data-used")).toBe("2");
    expect(await page.locator(".usage-chart rect").count()).toBe(30);
    await page.screenshot({ path: join(SHOTS, "portal-he.png"), fullPage: true });
    await page.goto(`${origin}/portal/?lang=en`);
    expect(await page.getAttribute("html", "dir")).toBe("ltr");
    await page.screenshot({ path: join(SHOTS, "portal-en.png"), fullPage: true });

    // Sign out: the dashboard is gone, the key keeps working.
    await Promise.all([page.waitForURL(`${origin}/portal/signin`), page.click('header button[type="submit"]')]);
    expect((await fetch(`${origin}/api/v1/chains/`, { headers: { "x-api-key": key } })).status).toBe(200);
  }, 60_000);

  test("a publishable key limited to one origin: real cross-origin fetches from an allowed and another origin, origins edited, a key revoked", async () => {
    // The same server reached as localhost is another origin for the browser.
    const other = origin.replace("127.0.0.1", "localhost");
    await page.goto(`${origin}/portal/signin?lang=en`);
    await page.fill("#email", "browser@example.com");
    await page.fill("#password", "a long enough password");
    await Promise.all([page.waitForURL(`${origin}/portal/`), page.click('main button[type="submit"].btn')]);

    await page.selectOption("#kind", "publishable");
    await page.fill("#new-origins", origin);
    await page.click('#create button[type="submit"]');
    const pk = (await page.textContent("#new-key"))!.trim();
    expect(pk).toMatch(/^pk_live_[0-9A-Za-z]{32}$/);
    expect(await page.getAttribute(`a[href="/widget/v1/demo.html?key=${pk}"]`, "href")).not.toBeNull();

    /** The widget's request from a page of `pageOrigin` (CORS applies from the other origin). */
    const widgetFrom = async (pageOrigin: string) => {
      await page.goto(`${pageOrigin}/healthz`);
      return page.evaluate(async ([base, k, barcode]) => {
        const r = await fetch(`${base}/api/v1/widget/data/?barcode=${barcode}&key=${k}`);
        const body = await r.json();
        return { status: r.status, code: body.code ?? null, barcode: body.data?.barcode ?? null, limit: r.headers.get("x-ratelimit-limit") };
      }, [origin, pk, MILK] as const);
    };
    expect(await widgetFrom(origin)).toEqual({ status: 200, code: null, barcode: MILK, limit: "120" });
    expect(await widgetFrom(other)).toEqual({ status: 403, code: "origin_not_allowed", barcode: null, limit: "120" });

    // Allow the other origin too, in the portal's form for that key: takes effect at once.
    await page.goto(`${origin}/portal/`);
    const id = (await page.locator(`tr:has(code:text("${pk.slice(0, 12)}…${pk.slice(-4)}"))`).getAttribute("data-key-id"))!;
    await page.fill(`#origins-${id}`, `${origin}\n${other}`);
    await Promise.all([page.waitForURL(`${origin}/portal/?done=origins`), page.click(`form[action="/portal/keys/${id}/origins"] button`)]);
    expect(await page.inputValue(`#origins-${id}`)).toBe(`${origin}\n${other}`);
    expect(await widgetFrom(other)).toEqual({ status: 200, code: null, barcode: MILK, limit: "120" });

    // Revoke the secret key made in the first test: the API refuses it at once.
    expect((await fetch(`${origin}/api/v1/chains/`, { headers: { "x-api-key": liveKey } })).status).toBe(200);
    await page.goto(`${origin}/portal/`);
    const liveRow = page.locator("tr[data-key-id]", { hasText: `${liveKey.slice(0, 12)}…${liveKey.slice(-4)}` });
    await liveRow.locator("a.danger").click(); // the confirmation page, then its button
    await Promise.all([page.waitForURL(`${origin}/portal/?done=revoked`), page.click("#revoke-confirm button.danger")]);
    expect(await page.locator("details li code").first().textContent()).toBe(`${liveKey.slice(0, 12)}…${liveKey.slice(-4)}`);
    const refused = await fetch(`${origin}/api/v1/chains/`, { headers: { "x-api-key": liveKey } });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { code: string }).code).toBe("invalid_api_key");
  }, 60_000);
});
