/**
 * /docs renders in headless Chromium with no internet: every request the page makes goes to the
 * service itself (any other host is refused and recorded), and the API reference shows the
 * operations of the OpenAPI document. Skips, saying why, without /usr/bin/chromium.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext } from "playwright-core";
import { testApp } from "../helpers/app.ts";
import { chromiumFor, launchChromium } from "../helpers/chromium.ts";

const hasChromium = chromiumFor("docs");

let temp: string;
let context: BrowserContext;
let ctx: ReturnType<typeof testApp>;
let origin: string;

describe.skipIf(!hasChromium)("/docs offline in headless Chromium", () => {
  beforeAll(async () => {
    temp = mkdtempSync(join(tmpdir(), "mehir-docs-e2e-"));
    ctx = testApp();
    ctx.app.listen({ port: 0, hostname: "127.0.0.1" });
    origin = `http://127.0.0.1:${ctx.app.server!.port}`;
    context = await launchChromium(join(temp, "profile"), { width: 1200, height: 1000 });
  }, 30_000);

  afterAll(async () => {
    await context?.close();
    await ctx?.app.stop();
    if (temp) rmSync(temp, { recursive: true, force: true });
  });

  test("every request stays on the service and the reference lists the operations", async () => {
    const external: string[] = [];
    const own: string[] = [];
    const failed: string[] = [];
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(origin) || url.startsWith("data:") || url.startsWith("blob:")) {
        own.push(url);
        return route.continue();
      }
      external.push(url);
      return route.abort("internetdisconnected");
    });
    const page = context.pages()[0] ?? (await context.newPage());
    page.on("response", (res) => {
      if (res.url().startsWith(origin) && res.status() >= 400) failed.push(`${res.status()} ${res.url()}`);
    });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${origin}/docs`);
    const doc = (await (await ctx.app.handle(new Request("http://localhost/docs/json"))).json()) as { paths: Record<string, Record<string, { summary?: string }>> };
    const summary = Object.values(doc.paths["/api/v1/prices/"] ?? doc.paths["/api/v1/prices"] ?? {})[0]?.summary;
    expect(summary).toBeTruthy();
    await page.getByText(summary!, { exact: false }).first().waitFor({ timeout: 20_000 });
    await page.waitForLoadState("networkidle");
    expect(external).toEqual([]);
    expect(failed).toEqual([]);
    expect(errors).toEqual([]);
    expect(own.some((u) => u.includes("/docs/assets/"))).toBe(true);
    // Nothing on the page needs another host: no AI agent, no MCP generator.
    const text = await page.locator("body").innerText();
    expect(text).not.toContain("Ask AI");
    expect(text).not.toContain("Generate MCP");
  }, 60_000);
});
