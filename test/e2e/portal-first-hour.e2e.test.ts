/**
 * A developer's first hour in the portal, in headless Chromium (Debian's package), at a phone's
 * and a desktop's width: sign up, create a key, the product explorer (search, a product, its
 * price-history chart after the operator upgrades the plan), change the password, revoke a key
 * through its confirmation page. No page scrolls sideways. Screenshots are kept in SHOTS (look at
 * them after a layout change). Skips, saying why, without /usr/bin/chromium.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { testApp } from "../helpers/app.ts";
import { chromiumFor, launchChromium } from "../helpers/chromium.ts";
import { EXPLORE_MILK, importExploreData } from "../helpers/portal/explore-data.ts";
import { setPlan } from "../../src/accounts/accounts.ts";

const hasChromium = chromiumFor("portal first hour");
const SHOTS = join(tmpdir(), "mehir-portal-first-hour-shots");

let temp: string;
let context: BrowserContext;
let ctx: ReturnType<typeof testApp>;
let origin: string;

const sideways = (p: Page) => p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

describe.skipIf(!hasChromium)("the portal's first hour in headless Chromium", () => {
  beforeAll(async () => {
    temp = mkdtempSync(join(tmpdir(), "mehir-portal-first-hour-"));
    mkdirSync(SHOTS, { recursive: true });
    ctx = testApp();
    await importExploreData(ctx);
    ctx.app.listen({ port: 0, hostname: "127.0.0.1" });
    origin = `http://127.0.0.1:${ctx.app.server!.port}`;
    context = await launchChromium(join(temp, "profile"), { width: 390, height: 844 });
  }, 90_000);

  afterAll(async () => {
    await context?.close();
    await ctx?.app.stop();
    if (temp) rmSync(temp, { recursive: true, force: true });
  });

  for (const width of [390, 1280] as const) {
    test(`at ${width} px: sign up, a key, the explorer, a new password, a key revoked after confirming`, async () => {
      await context.clearCookies(); // a new visitor: the other width's session is not this one's
      const page = await context.newPage();
      await page.setViewportSize({ width, height: 844 });
      const email = `dev-${width}@example.com`;
      const shot = async (name: string) => {
        expect({ name, sideways: await sideways(page) }).toEqual({ name, sideways: 0 });
        await page.screenshot({ path: join(SHOTS, `${width}-${name}.png`), fullPage: true });
      };
      try {
        // Sign up, and the dashboard's limits.
        await page.goto(`${origin}/portal/signup?lang=en`);
        await page.fill("#email", email);
        await page.fill("#password", "the first password");
        await Promise.all([page.waitForURL(`${origin}/portal/`), page.click('main button[type="submit"]')]);
        expect(await page.textContent("#rate-line")).toContain("bursts of at most 15");
        await page.locator("#plans summary").click();
        await shot("1-dashboard");

        // A live key, shown once.
        await page.fill("#name", "first key");
        await page.click('#create button[type="submit"]');
        expect((await page.textContent("#new-key"))!.trim()).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
        await shot("2-key-created");

        // The explorer: search, a product; on Free the history says it is Basic.
        await page.click('header a[href="/portal/explore"]');
        await page.fill("#q", "חלב");
        await Promise.all([page.waitForURL(/\/portal\/explore\?q=/), page.click('#search button[type="submit"]')]);
        await shot("3-search");
        await Promise.all([page.waitForURL(/\/portal\/explore\/product\?/), page.click("#results a")]);
        expect(await page.locator("#chains tbody tr").count()).toBe(4);
        expect(await page.locator("#needs-basic").count()).toBe(1);
        // The operator upgrades the plan (mehir accounts set-plan): the chart appears.
        setPlan(ctx.db.accounts, email, "basic");
        await page.goto(`${origin}/portal/explore/product?barcode=${EXPLORE_MILK}&stores=shufersal`);
        expect(await page.locator("#history-chart path").count()).toBe(4);
        const chart = await page.locator("#history-chart svg").boundingBox();
        expect(chart!.width).toBeGreaterThan(width / 2);
        expect(chart!.x + chart!.width).toBeLessThanOrEqual(width);
        expect(await page.locator("#stores tbody tr").count()).toBe(2);
        await shot("4-product");
        await page.goto(`${origin}/portal/explore`);
        expect(await page.locator("#index-chart path").count()).toBe(4);
        await shot("5-price-index");

        // Change the password.
        await page.goto(`${origin}/portal/`);
        await page.click('a[href="/portal/password"]');
        await page.fill("#current-password", "the first password");
        await page.fill("#new-password", "the second password");
        await page.fill("#new-password-again", "the second password");
        await shot("6-password");
        await Promise.all([page.waitForURL(`${origin}/portal/?done=password`), page.click('main button[type="submit"]')]);
        expect(await page.textContent('[role="status"]')).toContain("password was changed");

        // Revoke: a confirmation page first; "keep it" keeps it, then confirming revokes.
        await page.locator("tr[data-key-id] a.danger").click();
        await page.waitForURL(/\/portal\/keys\/\d+\/revoke$/);
        expect(await page.textContent("#revoke-confirm h1")).toBe("Revoke this key?");
        await shot("7-revoke-confirm");
        await page.click("#revoke-confirm a.secondary");
        expect(await page.locator("tr[data-key-id]").count()).toBe(1);
        await page.locator("tr[data-key-id] a.danger").click();
        await Promise.all([page.waitForURL(`${origin}/portal/?done=revoked`), page.click("#revoke-confirm button.danger")]);
        expect(await page.locator("tr[data-key-id]").count()).toBe(0);
        await shot("8-revoked");

        // Hebrew: the revoke label is not "cancel", and the product page keeps to the screen.
        await page.goto(`${origin}/portal/explore/product?barcode=${EXPLORE_MILK}&lang=he`);
        await shot("9-product-he");
      } finally {
        await page.close();
      }
    }, 120_000);
  }
});
