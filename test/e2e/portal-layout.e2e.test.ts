/**
 * The portal's pages on a phone and a desktop, in headless Chromium (Debian's package): no page
 * scrolls sideways at 320, 390 or 1280 px, in Hebrew (right-to-left) or English; key prefixes
 * inside Hebrew text are drawn in their own order (`sk_test_`, not `_sk_test`), measured on the
 * rendered glyphs; the usage chart keeps readable labels on a phone. The double-posted create-key
 * form makes one key. Skips, saying why, without /usr/bin/chromium. Screenshots are kept in SHOTS.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { testApp } from "../helpers/app.ts";
import { call, importMilk, MILK, withApiKey } from "../helpers/access.ts";
import { chromiumFor, launchChromium } from "../helpers/chromium.ts";

const hasChromium = chromiumFor("portal layout");
const SHOTS = join(tmpdir(), "mehir-portal-layout-shots");
const WIDTHS = [320, 390, 1280] as const;

let temp: string;
let context: BrowserContext;
let page: Page;
let ctx: ReturnType<typeof testApp>;
let origin: string;
let keyCreatedUrl = "";

/** How far the page scrolls sideways (0 = not at all). */
const sideways = (p: Page) => p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/**
 * Every key prefix (sk_live_, sk_test_, pk_live_) in the page's visible text, with the on-screen
 * x of its first and last character: drawn in logical order, the first is left of the last.
 */
const prefixOrder = (p: Page) =>
  p.evaluate(() => {
    const found: { text: string; first: number; last: number; context: string }[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const value = node.nodeValue ?? "";
      if (node.parentElement?.closest("select, option, textarea, script, style")) continue;
      for (const match of value.matchAll(/(?:sk_live_|sk_test_|pk_live_)/g)) {
        const at = match.index!;
        const rect = (offset: number) => {
          const range = document.createRange();
          range.setStart(node!, offset);
          range.setEnd(node!, offset + 1);
          return range.getBoundingClientRect();
        };
        const first = rect(at);
        const last = rect(at + match[0].length - 1);
        if (first.width === 0 || first.top !== last.top) continue; // hidden, or broken across lines
        found.push({ text: match[0], first: first.left, last: last.left, context: (node.parentElement?.textContent ?? "").slice(0, 80) });
      }
    }
    return found;
  });

async function shoot(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

describe.skipIf(!hasChromium)("portal layout in headless Chromium", () => {
  beforeAll(async () => {
    temp = mkdtempSync(join(tmpdir(), "mehir-portal-layout-"));
    mkdirSync(SHOTS, { recursive: true });
    ctx = testApp();
    importMilk(ctx);
    ctx.app.listen({ port: 0, hostname: "127.0.0.1" });
    origin = `http://127.0.0.1:${ctx.app.server!.port}`;
    context = await launchChromium(join(temp, "profile"), { width: 390, height: 844 });
    page = context.pages()[0] ?? (await context.newPage());

    // An account with a long address, keys of every kind (one revoked), a publishable key's long origins, usage.
    await page.goto(`${origin}/portal/signup`);
    await page.fill("#email", "a-rather-long-developer-address@example-company.co.il");
    await page.fill("#password", "a long enough password");
    await Promise.all([page.waitForURL(`${origin}/portal/`), page.click('main button[type="submit"]')]);
    const create = async (kind: string, name: string, origins = "") => {
      await page.goto(`${origin}/portal/`);
      await page.selectOption("#kind", kind);
      await page.fill("#name", name);
      if (origins) await page.fill("#new-origins", origins);
      await page.click('#create button[type="submit"]');
      return (await page.textContent("#new-key"))!.trim();
    };
    const live = await create("live", "production server");
    await create("publishable", "shop widget", "https://shop.example\nhttps://www.a-very-long-shop-domain-name.example");
    await create("test", "old tests");
    keyCreatedUrl = page.url();
    await create("test", "CI");
    for (let i = 0; i < 3; i++) await call(ctx.app, `/api/v1/prices/?barcode=${MILK}`, withApiKey(live));
    await page.goto(`${origin}/portal/`);
    const oldRow = page.locator("tr[data-key-id]", { hasText: "old tests" });
    await oldRow.locator("a.danger").click(); // the confirmation page, then its button
    await Promise.all([page.waitForURL(`${origin}/portal/?done=revoked`), page.click("#revoke-confirm button.danger")]);
  }, 90_000);

  afterAll(async () => {
    await context?.close();
    await ctx?.app.stop();
    if (temp) rmSync(temp, { recursive: true, force: true });
  });

  for (const lang of ["he", "en"] as const) {
    test(`${lang}: no sideways scroll at ${WIDTHS.join(", ")} px on the sign-in, sign-up and dashboard pages; key prefixes in order`, async () => {
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 844 });
        await page.goto(`${origin}/portal/?lang=${lang}`);
        await page.locator("#keys details summary").click(); // the revoked keys, open
        expect({ width, lang, page: "dashboard", sideways: await sideways(page) }).toEqual({ width, lang, page: "dashboard", sideways: 0 });
        // The header spans the page; every card fits in it.
        const header = await page.locator("header").boundingBox();
        expect(Math.round(header!.width)).toBe(width);
        for (const box of await page.locator(".card").evaluateAll((cards) => cards.map((c) => c.getBoundingClientRect().right))) expect(box).toBeLessThanOrEqual(width);
        for (const button of await page.locator("td.actions a").evaluateAll((b) => b.map((x) => [x.getBoundingClientRect().left, x.getBoundingClientRect().right]))) {
          expect(button[0]!).toBeGreaterThanOrEqual(0);
          expect(button[1]!).toBeLessThanOrEqual(width);
        }
        const prefixes = await prefixOrder(page);
        expect(prefixes.length).toBeGreaterThanOrEqual(5); // the key list, the revoked list, the hints
        for (const p of prefixes) expect({ ...p, inOrder: p.first < p.last }).toEqual({ ...p, inOrder: true });
        await shoot(`dashboard-${lang}-${width}`);
      }
      // Signed out: the same server at another host name (cookies are per host).
      const signedOut = origin.replace("127.0.0.1", "localhost");
      for (const path of ["/portal/signin", "/portal/signup"]) {
        for (const width of WIDTHS) {
          await page.setViewportSize({ width, height: 844 });
          await page.goto(`${signedOut}${path}?lang=${lang}`);
          expect({ path, width, sideways: await sideways(page) }).toEqual({ path, width, sideways: 0 });
        }
        await shoot(`${path.slice(8)}-${lang}-320`);
      }
    }, 90_000);
  }

  test("a double click or a reload of the create-key form makes one key; the pages that follow fit a phone", async () => {
    await page.setViewportSize({ width: 320, height: 700 });
    const keys = () => (ctx.db.accounts.query("SELECT count(*) AS n FROM api_keys").get() as { n: number }).n;
    const before = keys();
    await page.goto(`${origin}/portal/?lang=he`);
    await page.selectOption("#kind", "test");
    await page.fill("#name", "double click");
    await page.dblclick('#create button[type="submit"]');
    await page.waitForLoadState("load");
    await page.waitForSelector("#new-key, #error-code");
    expect(await sideways(page)).toBe(0);
    for (const p of await prefixOrder(page)) expect({ ...p, inOrder: p.first < p.last }).toEqual({ ...p, inOrder: true });
    await shoot("after-double-click-he-320");
    await page.reload(); // re-posts the form when the page is a post's answer
    await page.waitForSelector("#new-key, #error-code");
    expect(await sideways(page)).toBe(0);
    await shoot("after-reload-he-320");
    expect(keys()).toBe(before + 1);
  }, 60_000);

  test("the usage chart stays readable on a phone: labels at the page's text size, bars wide enough to see", async () => {
    await page.setViewportSize({ width: 320, height: 700 });
    await page.goto(`${origin}/portal/?lang=he`);
    const fontPx = await page.locator(".chart-x span").first().evaluate((s) => parseFloat(getComputedStyle(s).fontSize));
    expect(fontPx).toBeGreaterThanOrEqual(11);
    const barWidths = await page.locator(".usage-chart rect").evaluateAll((rects) => rects.map((r) => r.getBoundingClientRect().width));
    expect(barWidths).toHaveLength(30);
    expect(Math.min(...barWidths)).toBeGreaterThanOrEqual(3);
    // Day labels do not overlap one another.
    const labels = await page.locator(".chart-x span").evaluateAll((s) => s.map((x) => [x.getBoundingClientRect().left, x.getBoundingClientRect().right]));
    for (let i = 1; i < labels.length; i++) expect(labels[i]![0]!).toBeGreaterThan(labels[i - 1]![1]!);
  });
});
