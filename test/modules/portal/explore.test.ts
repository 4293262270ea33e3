/**
 * The portal's product explorer: search, a product's prices by chain and by store, its price
 * history and the chains' price index as server-rendered SVG. Signed-in accounts only; the
 * history and the index (Basic operations in the API) only for accounts whose plan includes them;
 * every view takes a token of the account's rate limit.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { testApp } from "../../helpers/app.ts";
import { PortalClient } from "../../helpers/portal/client.ts";
import { EXPLORE_MILK, importExploreData } from "../../helpers/portal/explore-data.ts";
import { lineChart } from "../../../src/modules/portal/line-chart.ts";

const ctx = testApp();
beforeAll(() => importExploreData(ctx));

const signedUp = async (email: string, plan?: string) => {
  const browser = new PortalClient(ctx.app);
  await browser.signUp(email);
  if (plan) ctx.db.accounts.run("UPDATE accounts SET plan = ? WHERE email = ?", [plan, email]);
  return browser;
};

/** The text of an element's rows: cells joined by " | ", tags stripped. */
function rows(html: string, sectionId: string): string[] {
  const section = html.slice(html.indexOf(`id="${sectionId}"`));
  const body = section.slice(section.indexOf("<tbody>"), section.indexOf("</tbody>"));
  return [...body.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((m) =>
    [...m[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => c[1]!.replace(/<[^>]+>/g, "").trim()).join(" | "),
  );
}

describe("the product explorer", () => {
  test("signed out, it asks to sign in; the portal's header links it", async () => {
    const anonymous = new PortalClient(ctx.app);
    expect((await anonymous.get("/portal/explore")).headers.get("location")).toBe("/portal/signin");
    expect((await anonymous.get(`/portal/explore/product?barcode=${EXPLORE_MILK}`)).headers.get("location")).toBe("/portal/signin");
    await anonymous.get("/portal/signin");
    expect(anonymous.lastHtml).toContain('<a href="/portal/explore">');
  });

  test("search: results link to the product page with their identity; no match and invalid text say so", async () => {
    const browser = await signedUp("search@example.com");
    expect((await browser.get(`/portal/explore?q=${encodeURIComponent("חלב")}`)).status).toBe(200);
    expect(browser.lastHtml).toContain(`<a href="/portal/explore/product?barcode=${EXPLORE_MILK}"><bdi>חלב תנובה 3% 1 ליטר</bdi></a>`);
    expect(browser.lastHtml).toContain("4 רשתות · החל מ-₪6.21");
    await browser.get(`/portal/explore?q=${encodeURIComponent("אננס")}&lang=en`);
    expect(browser.lastHtml).toContain("No product matches.");
    await browser.get(`/portal/explore?q=${encodeURIComponent("!!!")}`);
    expect(browser.lastHtml).toContain("No product matches.");
  });

  test("a product: chain prices cheapest first, store prices (all, or one chain's), the history chart on Basic", async () => {
    const browser = await signedUp("basic@example.com", "basic");
    expect((await browser.get(`/portal/explore/product?barcode=${EXPLORE_MILK}`)).status).toBe(200);
    expect(rows(browser.lastHtml, "chains")).toEqual(["רמי לוי | 6.21 | 6.21–6.21 | 1", "אושר עד | 6.76 | 6.76–6.76 | 1", "שופרסל | 7.25 | 7.25–7.35 | 2", "ויקטורי | 7.30 | 7.30–7.40 | 2"]);
    expect(rows(browser.lastHtml, "stores")).toHaveLength(6);
    expect(rows(browser.lastHtml, "stores")[0]).toBe("רמי לוי · ירושלים 1 | ירושלים | 6.21");
    await browser.get(`/portal/explore/product?barcode=${EXPLORE_MILK}&stores=victory`);
    expect(rows(browser.lastHtml, "stores")).toEqual(["ויקטורי · חיפה 1 | חיפה | 7.30", "ויקטורי · באר שבע 2 | באר שבע | 7.40"]);
    expect(browser.lastHtml).toContain('<option value="victory" selected>');
    // The history: one step line per chain, drawn from the records (Rami Levy: 7.01 → 6.81 → 6.21).
    const chart = browser.lastHtml.slice(browser.lastHtml.indexOf('id="history-chart"'));
    expect(chart.match(/<path d="M/g)).toHaveLength(4);
    expect(chart).toContain("<title>רמי לוי</title>");
    expect(chart).toContain("<span>7.77</span>"); // the top of the y axis: the highest price plus a margin
    expect(chart).toContain('<span style="left:100%">2026-11-22</span>');
    expect(browser.lastHtml).not.toContain("<script");
  });

  test("Free accounts see search and prices (Free operations); the history and the index say they are Basic", async () => {
    const browser = await signedUp("free@example.com");
    await browser.get(`/portal/explore/product?barcode=${EXPLORE_MILK}&lang=en`);
    expect(rows(browser.lastHtml, "chains")).toHaveLength(4);
    expect(browser.lastHtml).not.toContain('id="history-chart"');
    expect(browser.lastHtml).toContain('id="needs-basic"');
    expect(browser.lastHtml).toContain("mehir accounts set-plan free@example.com basic");
    await browser.get("/portal/explore");
    expect(browser.lastHtml).not.toContain('id="index-chart"');
    expect(browser.lastHtml).toContain('id="needs-basic"');
  });

  test("the chain price index on Basic: the chart and the ranking", async () => {
    const browser = await signedUp("index@example.com", "pro");
    await browser.get("/portal/explore");
    expect(browser.lastHtml).toContain('id="index-chart"');
    expect(rows(browser.lastHtml, "price-index").map((r) => r.split(" | ").slice(0, 2).join(" "))).toEqual(["1 רמי לוי", "2 אושר עד", "3 ויקטורי", "4 שופרסל"]);
  });

  test("an unknown product is a 404 page with its code; no barcode goes back to the search", async () => {
    const browser = await signedUp("missing@example.com");
    expect((await browser.get("/portal/explore/product?barcode=7290000009999")).status).toBe(404);
    expect(browser.lastHtml).toContain('<code id="error-code">product_not_found</code>');
    expect((await browser.get("/portal/explore/product")).headers.get("location")).toBe("/portal/explore");
  });

  test("views take the account's rate limit: past the burst, 429 with Retry-After", async () => {
    // An app of its own: sign-ups are limited per address (5 per 15 minutes), and this file made five.
    const own = testApp();
    const browser = new PortalClient(own.app);
    await browser.signUp("busy@example.com");
    const statuses: number[] = [];
    for (let i = 0; i < 16; i++) statuses.push((await browser.get("/portal/explore")).status);
    expect(statuses).toEqual([...Array(15).fill(200), 429]);
  });
});

describe("lineChart", () => {
  test("a step line per series, unchanged values merged, gaps for nulls, running to the last date", () => {
    const svg = lineChart(
      [
        { label: "a", points: [{ date: "2026-01-01", value: 10 }, { date: "2026-01-02", value: 10 }, { date: "2026-01-03", value: 20 }] },
        { label: "b", points: [{ date: "2026-01-01", value: 20 }, { date: "2026-01-02", value: null }, { date: "2026-01-03", value: 10 }] },
      ],
      { id: "c", label: "test", until: "2026-01-05", format: (v) => v.toFixed(0) },
    );
    const paths = [...svg.matchAll(/<path d="([^"]+)"/g)].map((m) => m[1]);
    // x: 4 days over 1000 units; y: 10..20 padded by 0.8 each side, 11.6 over 300 units: 10 → 300 − 0.8/11.6·300 = 279.3.
    expect(paths).toEqual(["M0.0 279.3 H500.0 V20.7 H1000", "M0.0 20.7 H250.0 M500.0 279.3 H1000"]);
    expect(lineChart([], { id: "c", label: "", until: "2026-01-05", format: String })).toBe("");
  });
});
