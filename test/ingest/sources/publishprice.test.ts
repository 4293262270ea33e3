import { afterAll, describe, expect, test } from "bun:test";
import { fetchChains } from "../../../src/ingest/sources/fetch-chains.ts";
import { readPublishPricePage } from "../../../src/ingest/sources/publishprice.ts";
import { DAY, FAST_HTTP, NOW, bytesResponse, htmlResponse, memoryPrices, priceFullGz, promoFullGz, registryOf, startFakePortal, storesXml, tempDir } from "../../helpers/ingest/fake-portal.ts";

const MEGA = "7290055700007";
const BITAN = "7290725900003";

const page = (path: string, files: { name: string; size: number }[], literal = false) => `<!DOCTYPE html><html><head><title>Prices</title></head><body>
<table id="files"></table>
<script src="/assets/app.js"></script>
<script>
  const path = '${path}';
  const files = ${literal ? "[" + files.map((f) => `{name: '${f.name}', size: ${f.size},}`).join(",") + "]" : JSON.stringify(files)};
  render(path, files);
</script>
<script>analytics()</script></body></html>`;

describe("PublishPrice", () => {
  const stops: (() => void)[] = [];
  afterAll(() => stops.forEach((s) => s()));

  test("reads the file list embedded in the page's script (JSON or JS literal)", () => {
    expect(readPublishPricePage(page("20261122", [{ name: "a.gz", size: 3 }]))).toEqual({ path: "20261122", files: [{ name: "a.gz", size: 3 }] });
    expect(readPublishPricePage(page("20261122", [{ name: "b.gz", size: 4 }], true)).files).toEqual([{ name: "b.gz", size: 4 }]);
    expect(readPublishPricePage("<html>maintenance</html>")).toEqual({ path: null, files: [] });
  });

  test("today's and yesterday's folders merged; newest per store of every chain code; files under /<folder>/<name>", async () => {
    const today: Record<string, Uint8Array> = {
      [`Stores${MEGA}-202611220200.xml`]: storesXml(MEGA),
      [`PriceFull${BITAN}-9032-202611220300.gz`]: priceFullGz(BITAN, "9032"),
      [`PromoFull${BITAN}-9032-202611220300.gz`]: promoFullGz(BITAN, "9032"),
    };
    // Published just after midnight but still in yesterday's folder.
    const yesterday: Record<string, Uint8Array> = {
      [`PriceFull${MEGA}-0037-202611220010.gz`]: priceFullGz(MEGA, "37"),
      [`PriceFull${MEGA}-0037-202611210300.gz`]: priceFullGz(MEGA, "37"),
    };
    const portal = startFakePortal((_req, url) => {
      const p = url.searchParams.get("p");
      if (url.pathname === "/" && p === "./20261122") return htmlResponse(page("20261122", Object.entries(today).map(([name, b]) => ({ name, size: b.length }))));
      if (url.pathname === "/" && p === "./20261121") return htmlResponse(page("20261121", Object.entries(yesterday).map(([name, b]) => ({ name, size: b.length })), true));
      const m = url.pathname.match(/^\/(\d{8})\/(.+)$/);
      const bytes = m && (m[1] === "20261122" ? today : yesterday)[decodeURIComponent(m[2]!)];
      return bytes ? bytesResponse(bytes) : htmlResponse("not found", 404);
    });
    stops.push(portal.stop);
    const registry = registryOf({ slug: "carrefour", chain_codes: [MEGA, BITAN, "7290055700014"], portal: { family: "publishprice", base_url: portal.url } });
    const report = await fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    const r = report.chains[0]!;
    expect(r.status).toBe("ok");
    expect(r.downloaded.map((d) => d.fileName)).toEqual([
      `Stores${MEGA}-202611220200.xml`,
      `PriceFull${MEGA}-0037-202611220010.gz`,
      `PriceFull${BITAN}-9032-202611220300.gz`,
      `PromoFull${BITAN}-9032-202611220300.gz`,
    ]);
    expect(portal.requests.some((q) => q.path === `/20261121/PriceFull${MEGA}-0037-202611220010.gz`)).toBe(true);
  });

  test("a page without a file list fails the chain", async () => {
    const portal = startFakePortal(() => htmlResponse("<html><body>Under maintenance</body></html>"));
    stops.push(portal.stop);
    const registry = registryOf({ slug: "quik", chain_codes: ["7291029710008"], portal: { family: "publishprice", base_url: portal.url } });
    const report = await fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    expect(report.chains[0]!.status).toBe("failed");
    expect(report.chains[0]!.errors[0]).toContain("no file list");
  });
});
