import { afterAll, describe, expect, test } from "bun:test";
import { createServer, type Socket } from "node:net";
import { fetchChains } from "../../../src/ingest/sources/fetch-chains.ts";
import { formatReport } from "../../../src/cli/fetch.ts";
import { FAST_HTTP, DAY, NOW, htmlResponse, memoryPrices, registryOf, startFakePortal, tempDir } from "../../helpers/ingest/fake-portal.ts";

// A portal that refuses the service's address is `blocked`, not "no files published": Reblaze's
// HTTP 247 challenge (Super-Pharm), Cloudflare's 403 (Hazi Hinam, Netiv HaHesed), a challenge page
// served with 200, a host that accepts the connection and never answers (laibcatalog).

const REBLAZE = `<html><head><script>window.rbzns={bereshit:"1"};</script></head><body>Please wait…</body></html>`;
const CLOUDFLARE = `<!DOCTYPE html><html><head><title>Just a moment...</title></head><body><div id="challenge-platform"></div></body></html>`;

const stops: (() => void)[] = [];
afterAll(() => stops.forEach((s) => s()));

/** Accepts connections and never answers. */
async function deadHost(): Promise<string> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  stops.push(() => {
    sockets.forEach((s) => s.destroy());
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

function portalAnswering(response: () => Response) {
  const portal = startFakePortal(() => response());
  stops.push(portal.stop);
  return portal;
}

const health = (db: ReturnType<typeof memoryPrices>, slug: string) =>
  db.query("SELECT fetch_status, status_reason, last_attempt_at FROM chain_health WHERE chain_slug = ?").get(slug) as { fetch_status: string; status_reason: string | null; last_attempt_at: string | null };

describe("blocked portals", () => {
  test("247, 403, a 200 challenge page and a host that never answers are blocked, each with its reason; a 500 is failing", async () => {
    const reblaze = portalAnswering(() => new Response(REBLAZE, { status: 247, headers: { "content-type": "text/html" } }));
    const cloudflare = portalAnswering(() => htmlResponse(CLOUDFLARE, 403));
    const challenge200 = portalAnswering(() => htmlResponse(CLOUDFLARE, 200));
    const broken = portalAnswering(() => htmlResponse("oops", 500));
    const dead = await deadHost();
    const registry = registryOf(
      { slug: "super-pharm", chain_codes: ["7290172900007"], portal: { family: "superpharm", base_url: reblaze.url } },
      { slug: "hazi-hinam", chain_codes: ["7290700100008"], portal: { family: "hazihinam", base_url: cloudflare.url + "/Prices" } },
      { slug: "netiv-hahesed", chain_codes: ["7290058160839"], portal: { family: "netivhahesed", base_url: challenge200.url } },
      { slug: "victory", chain_codes: ["7290696200003"], portal: { family: "laib", base_url: dead, folder: "victory" } },
      { slug: "king-store", chain_codes: ["7290058108879"], portal: { family: "bina", base_url: broken.url } },
    );
    const db = memoryPrices();
    const report = await fetchChains({ db, registry, dataDir: tempDir(), date: DAY, http: { ...FAST_HTTP, timeoutMs: 300, retries: 1 }, now: NOW, log: () => {} });
    const by = Object.fromEntries(report.chains.map((c) => [c.slug, c]));
    expect(Object.fromEntries(report.chains.map((c) => [c.slug, c.status]))).toEqual({ "super-pharm": "blocked", "hazi-hinam": "blocked", "netiv-hahesed": "blocked", victory: "blocked", "king-store": "failed" });
    expect(by["super-pharm"]!.statusReason).toContain("HTTP 247");
    expect(by["hazi-hinam"]!.statusReason).toContain("HTTP 403");
    expect(by["netiv-hahesed"]!.statusReason).toContain("challenge page");
    expect(by.victory!.statusReason).toContain("no answer");
    expect(by["king-store"]!.statusReason).toContain("HTTP 500");
    for (const slug of ["super-pharm", "hazi-hinam", "netiv-hahesed", "victory"]) {
      expect(health(db, slug)).toMatchObject({ fetch_status: "blocked", status_reason: by[slug]!.statusReason });
      expect(health(db, slug).last_attempt_at).not.toBeNull();
    }
    expect(health(db, "king-store")).toMatchObject({ fetch_status: "failing" });
    // A refusal is not retried (the next run tries again): one listing request to Reblaze.
    expect(reblaze.requests.length).toBe(1);
    // The report says blocked, with the reason.
    expect(formatReport(report)).toMatch(/super-pharm\s+blocked .*HTTP 247/);
  });
});

describe("a page that is not a file listing", () => {
  // A challenge or maintenance page with none of the known firewall markers, served with 200.
  const UNKNOWN = `<!DOCTYPE html><html><head><title>Please wait</title><script src="/px/init.js"></script></head><body><div id="px-captcha">Verifying your connection</div></body></html>`;

  test("is failing with its reason where a listing (grid, table, day index) was expected; a real empty listing is still empty", async () => {
    const unknown = portalAnswering(() => htmlResponse(UNKNOWN));
    const emptyGrid = portalAnswering(() => htmlResponse(`<div class="mvc-grid" data-total-rows="0"><table><tbody></tbody></table></div>`));
    const registry = registryOf(
      { slug: "super-pharm", chain_codes: ["7290172900007"], portal: { family: "superpharm", base_url: unknown.url } },
      { slug: "hazi-hinam", chain_codes: ["7290700100008"], portal: { family: "hazihinam", base_url: unknown.url + "/Prices" } },
      { slug: "shufersal", chain_codes: ["7290027600007"], portal: { family: "shufersal", base_url: unknown.url } },
      { slug: "wolt-market", chain_codes: ["7290058249350"], portal: { family: "wolt", base_url: unknown.url + "/index.html" } },
      { slug: "good-pharm", chain_codes: ["7290058197699"], portal: { family: "superpharm", base_url: emptyGrid.url } },
    );
    const db = memoryPrices();
    const report = await fetchChains({ db, registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    const by = Object.fromEntries(report.chains.map((c) => [c.slug, c]));
    for (const slug of ["super-pharm", "hazi-hinam", "shufersal", "wolt-market"]) {
      expect({ slug, status: by[slug]!.status }).toEqual({ slug, status: "failed" });
      expect(by[slug]!.statusReason).toContain(`the portal answered a page that is not a file listing ("Please wait")`);
      expect(health(db, slug)).toMatchObject({ fetch_status: "failing", status_reason: by[slug]!.statusReason });
    }
    expect(by["good-pharm"]!.status).toBe("empty");
    expect(formatReport(report)).toMatch(/super-pharm\s+failed .*not a file listing/);
  });
});
