/**
 * The widget in a real browser: headless Chromium (Debian's package) driven by playwright-core.
 * The service runs on one loopback origin, a shop page on another embeds the widget from it.
 * Skips, saying why, when /usr/bin/chromium is absent (CI installs it).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { commitData, testApp } from "../helpers/app.ts";
import { Fixture } from "../helpers/fixture.ts";
import { insertPublishableKey } from "../helpers/publishable-key.ts";
import { refreshChainProducts } from "../../src/db/chain-products.ts";
import { chromiumFor, launchChromium } from "../helpers/chromium.ts";

const hasChromium = chromiumFor("widget");

const MILK = "7290000066318";
const BREAD = "7290000000017";
const UNKNOWN = "7290000099999";

let temp: string;
// The screenshots, kept for a look after the run (one folder, overwritten by the next run).
const SHOTS = join(tmpdir(), "mehir-widget-e2e-shots");
let context: BrowserContext;
let page: Page;
let api: { stop(force?: boolean): unknown; port?: number };
let shop: ReturnType<typeof Bun.serve>;
let apiOrigin: string;
let shopOrigin: string;
const dataRequests: string[] = [];
/** A publishable key limited to another site than any page of this test. */
let otherSiteKey = "";

/** The shop's page: hostile global CSS, widgets in several states, the loader from the service's origin. */
function shopPage(keys: { good: string; otherSite: string; unknown: string }): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<style>
  * { color: rgb(255, 0, 0) !important; font-size: 40px !important; font-family: serif !important; letter-spacing: 3px !important; }
  table, th, td, div, p { background: rgb(255, 255, 0) !important; border: 6px dashed rgb(255, 0, 0) !important; direction: ltr !important; }
  body { margin: 8px; width: 1100px; }
  .grid { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
</style></head>
<body>
<h1 id="title">Shop product page</h1>
<div class="grid">
  <div id="milk" data-svc-widget data-barcode="${MILK}" data-api-key="${keys.good}"></div>
  <div id="milk-en" data-svc-widget data-barcode="${MILK}" data-api-key="${keys.good}" data-lang="en" data-theme="dark"></div>
  <div id="unknown" data-svc-widget data-barcode="${UNKNOWN}" data-api-key="${keys.good}"></div>
  <div id="bad-key" data-svc-widget data-barcode="${MILK}" data-api-key="${keys.unknown}"></div>
  <div id="other-site" data-svc-widget data-barcode="${BREAD}" data-api-key="${keys.otherSite}"></div>
</div>
<script src="${apiOrigin}/widget/v1/loader.js" async></script>
</body></html>`;
}

const widgetState = (id: string) =>
  page.evaluate((id) => document.getElementById(id)?.shadowRoot?.querySelector(".w")?.getAttribute("data-state") ?? null, id);

describe.skipIf(!hasChromium)("widget in headless Chromium", () => {
  beforeAll(async () => {
    temp = mkdtempSync(join(tmpdir(), "mehir-widget-e2e-"));
    mkdirSync(SHOTS, { recursive: true });
    const ctx = testApp({ now: () => new Date("2026-11-22T10:00:00Z") });
    const f = new Fixture(ctx.db.prices, ctx.chainIds);
    const [s1, s2, s3] = ["1", "2", "3"].map((c) => f.store("shufersal", c));
    const [r1, r2] = ["1", "2"].map((c) => f.store("rami-levy", c));
    const v1 = f.store("victory", "1");
    const milk = f.product(MILK, "חלב 3% 1 ליטר");
    const bread = f.product(BREAD, "לחם אחיד");
    for (const [store, price] of [[s1, 690], [s2, 690], [s3, 720], [r1, 650], [r2, 620], [v1, 700]] as const) f.price(store!, milk, price);
    f.price(s1!, bread, 650);
    f.promotion("rami-levy", "R1", { stores: [r1!], items: [milk], minQty: 1, discountedPrice: 500 });
    refreshChainProducts(ctx.db.prices);
    commitData(ctx.deps, "2026-11-22T05:30:00+02:00");

    shop = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("not yet", { status: 503 }) });
    shopOrigin = `http://127.0.0.1:${shop.port}`;
    const good = insertPublishableKey(ctx.db.accounts, { allowedOrigins: [shopOrigin] }).key;
    const otherSite = insertPublishableKey(ctx.db.accounts, { allowedOrigins: ["https://elsewhere.example"] }).key;
    otherSiteKey = otherSite;

    // Keys made while the service runs take effect within about a second (contract): wait for ours
    // (the hook's timeout bounds the wait).
    for (;;) {
      const res = await ctx.app.handle(new Request(`http://127.0.0.1/api/v1/widget/data/?barcode=${MILK}&key=${good}`, { headers: { origin: shopOrigin } }));
      await res.arrayBuffer();
      if (res.status === 200) break;
      await Bun.sleep(100);
    }

    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request) => ctx.app.handle(request),
    });
    api = server;
    apiOrigin = `http://127.0.0.1:${server.port}`;
    const html = shopPage({ good, otherSite, unknown: "pk_live_" + "Z".repeat(32) });
    shop.reload({ fetch: () => new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } }) });

    context = await launchChromium(join(temp, "profile"), { width: 1140, height: 900 });
    page = context.pages()[0] ?? (await context.newPage());
    page.on("request", (r) => {
      if (r.url().includes("/api/v1/widget/data")) dataRequests.push(r.url());
    });
    await page.goto(shopOrigin + "/");
    await page.waitForFunction(
      () => [...document.querySelectorAll("[data-svc-widget]")].every((e) => (e.shadowRoot?.querySelector(".w")?.getAttribute("data-state") ?? "loading") !== "loading"),
      null,
      { timeout: 0 },
    );
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    api?.stop(true);
    shop?.stop(true);
    if (temp) rmSync(temp, { recursive: true, force: true });
  });

  test("the shop page and the service are different origins", () => {
    expect(new URL(shopOrigin).origin).not.toBe(new URL(apiOrigin).origin);
  });

  test("rows are shown, cheapest first and marked, prices in shekels", async () => {
    expect(await widgetState("milk")).toBe("ok");
    const rows = page.locator("#milk tbody tr");
    expect(await rows.count()).toBe(3);
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-chain")))).toEqual(["rami-levy", "shufersal", "victory"]);
    const first = await rows.nth(0).innerText();
    expect(first).toContain("רמי לוי");
    expect(first).toContain("הזול ביותר");
    expect(first).toContain("מבצע");
    expect(first).toContain("₪");
    expect(first).toContain("5.00");
    expect(await page.locator("#milk caption").innerText()).toBe("חלב 3% 1 ליטר");
    expect(await page.locator("#milk-en thead th").allInnerTexts()).toEqual(["Chain", "Price", "Stores"]);
  });

  test("one request per barcode and key for the two milk widgets", () => {
    const milk = dataRequests.filter((u) => u.includes(`barcode=${MILK}`) && !u.includes("ZZZZ"));
    expect(milk).toHaveLength(1);
  });

  test("the host page's CSS does not reach inside the widget", async () => {
    const outside = await page.evaluate(() => getComputedStyle(document.getElementById("title")!).color);
    expect(outside).toBe("rgb(255, 0, 0)"); // the hostile CSS is live on the page
    const inside = await page.evaluate(() => {
      const root = document.getElementById("milk")!.shadowRoot!;
      const th = getComputedStyle(root.querySelector("tbody th")!);
      const td = getComputedStyle(root.querySelector("td")!);
      const w = getComputedStyle(root.querySelector(".w")!);
      return { thColor: th.color, thSize: th.fontSize, tdBorder: td.borderTopStyle, tdBackground: td.backgroundColor, direction: w.direction, spacing: w.letterSpacing };
    });
    expect(inside.thColor).not.toBe("rgb(255, 0, 0)");
    expect(inside.thSize).not.toBe("40px");
    expect(inside.tdBorder).not.toBe("dashed");
    expect(inside.tdBackground).not.toBe("rgb(255, 255, 0)");
    expect(inside.direction).toBe("rtl");
    expect(inside.spacing).not.toBe("3px");
  });

  test("an invalid key, a key for another site and an unknown product show their states", async () => {
    expect(await widgetState("bad-key")).toBe("key");
    expect(await widgetState("other-site")).toBe("key");
    expect(await widgetState("unknown")).toBe("not_found");
    expect(await page.locator("#bad-key .st").innerText()).toContain("מפתח");
  });

  test("a widget added after load is picked up", async () => {
    await page.evaluate((barcode) => {
      const el = document.createElement("div");
      el.id = "late";
      el.setAttribute("data-svc-widget", "");
      el.setAttribute("data-barcode", barcode);
      el.setAttribute("data-api-key", (document.getElementById("milk") as HTMLElement).dataset.apiKey!);
      document.body.appendChild(el);
    }, BREAD);
    await page.waitForFunction(() => document.getElementById("late")?.shadowRoot?.querySelector(".w")?.getAttribute("data-state") === "ok", null, { timeout: 0 });
    expect(await page.locator("#late tbody tr").count()).toBe(1);
  });

  test("keyboard focus reaches the widget and is visible", async () => {
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press("Tab");
    const focus = await page.evaluate(() => {
      const host = document.activeElement!;
      const inner = host.shadowRoot?.activeElement as HTMLElement | null;
      return { host: host.id, inner: inner?.className ?? null, outline: inner ? getComputedStyle(inner).outlineStyle : null };
    });
    expect(focus.host).toBe("milk");
    expect(focus.inner).toBe("sc");
    expect(focus.outline).toBe("solid");
  });

  test("the demo page shows rows on a fresh install with no key of the visitor's; its key does not work on the shop's page", async () => {
    const demo = await context.newPage();
    const errors: string[] = [];
    demo.on("pageerror", (e) => errors.push(String(e)));
    await demo.goto(apiOrigin + "/widget/v1/demo.html");
    await demo.waitForFunction(
      () => {
        const all = [...document.querySelectorAll("[data-svc-widget]")];
        return all.length > 0 && all.every((e) => (e.shadowRoot?.querySelector(".w")?.getAttribute("data-state") ?? "loading") !== "loading");
      },
      null,
      { timeout: 0 },
    );
    const states = await demo.evaluate(() => [...document.querySelectorAll("[data-svc-widget]")].map((e) => e.shadowRoot!.querySelector(".w")!.getAttribute("data-state")));
    expect(states).toEqual(["ok", "ok"]); // milk (6 stores), bread (1 store)
    expect(await demo.locator("[data-svc-widget] tbody tr").count()).toBe(4);
    const demoShot = join(SHOTS, "demo.png");
    await demo.screenshot({ path: demoShot, fullPage: true });
    console.log(`widget e2e: demo page screenshot at ${demoShot}`);
    const demoKey = await demo.evaluate(() => document.querySelector<HTMLElement>("[data-svc-widget]")!.dataset.apiKey!);
    expect(demoKey).toMatch(/^pk_live_/);
    expect(errors).toEqual([]);
    await demo.close();

    // Copied onto another site's page, the demo key is refused (origin_not_allowed → the key state).
    await page.evaluate(({ barcode, key }) => {
      const el = document.createElement("div");
      el.id = "stolen-demo-key";
      el.setAttribute("data-svc-widget", "");
      el.setAttribute("data-barcode", barcode);
      el.setAttribute("data-api-key", key);
      document.body.appendChild(el);
    }, { barcode: MILK, key: demoKey });
    await page.waitForFunction(() => (document.getElementById("stolen-demo-key")?.shadowRoot?.querySelector(".w")?.getAttribute("data-state") ?? "loading") !== "loading", null, { timeout: 0 });
    expect(await widgetState("stolen-demo-key")).toBe("key");
  }, 120_000);

  test("the demo page with the visitor's key limited to another site: the notice says the widgets are refused here, and each shows the key state", async () => {
    const demo = await context.newPage();
    await demo.goto(`${apiOrigin}/widget/v1/demo.html?key=${otherSiteKey}`);
    expect(await demo.getAttribute("#key-note", "data-fit")).toBe("other-origins");
    await demo.waitForFunction(
      () => {
        const all = [...document.querySelectorAll("[data-svc-widget]")];
        return all.length > 0 && all.every((e) => (e.shadowRoot?.querySelector(".w")?.getAttribute("data-state") ?? "loading") !== "loading");
      },
      null,
      { timeout: 0 },
    );
    const states = await demo.evaluate(() => [...document.querySelectorAll("[data-svc-widget]")].map((e) => e.shadowRoot!.querySelector(".w")!.getAttribute("data-state")));
    expect(states.length).toBeGreaterThan(0);
    expect(new Set(states)).toEqual(new Set(["key"]));
    await demo.close();
  }, 120_000);

  test("screenshot", async () => {
    const path = join(SHOTS, "widget.png");
    await page.screenshot({ path, fullPage: true });
    console.log(`widget e2e: screenshot at ${path}`);
    expect(existsSync(path)).toBe(true);
  });
});
