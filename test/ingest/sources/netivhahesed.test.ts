import { afterAll, describe, expect, test } from "bun:test";
import { fetchChains } from "../../../src/ingest/sources/fetch-chains.ts";
import { DAY, FAST_HTTP, NOW, bytesResponse, htmlResponse, memoryPrices, priceFullGz, promoFullGz, registryOf, startFakePortal, storesXml, tempDir } from "../../helpers/ingest/fake-portal.ts";

const NH = "7290058160839";

const dayTable = (rows: string[]) => `<!DOCTYPE html><html><body><form><input type="date" name="Date"></form>
<table class="table table-striped"><thead><tr><th>קובץ</th><th>סניף</th><th>תאריך</th><th>גודל</th></tr></thead><tbody>${rows.join("")}</tbody></table></body></html>`;

describe("Netiv HaHesed", () => {
  const stops: (() => void)[] = [];
  afterAll(() => stops.forEach((s) => s()));

  const files: Record<string, Uint8Array> = {
    [`Stores${NH}-000-202611220525.xml`]: storesXml(NH),
    [`PriceFull${NH}-001-202611220525.gz`]: priceFullGz(NH, "1"),
    [`PromoFull${NH}-001-202611220525.gz`]: promoFullGz(NH, "1"),
    [`Price${NH}-001-202611220700.gz`]: priceFullGz(NH, "1"),
  };
  const rows = Object.keys(files).map((n) => `<tr><td><a href="/files/${DAY}/${n}">${n}</a></td><td>1</td><td>22/11/2026 05:25</td><td>2 KB</td></tr>`);

  test("the day's table by ?Date=; deltas beside the snapshot are not taken", async () => {
    const portal = startFakePortal((_req, url) => {
      if (url.pathname === "/") return htmlResponse(dayTable(url.searchParams.get("Date") === DAY ? rows : []));
      const m = url.pathname.match(/^\/files\/[\d-]+\/(.+)$/);
      return m ? bytesResponse(files[m[1]!]!) : htmlResponse("not found", 404);
    });
    stops.push(portal.stop);
    const registry = registryOf({ slug: "netiv-hahesed", chain_codes: [NH], portal: { family: "netivhahesed", base_url: portal.url } });
    const report = await fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    expect(report.chains[0]!.downloaded.map((d) => d.fileName)).toEqual([`Stores${NH}-000-202611220525.xml`, `PriceFull${NH}-001-202611220525.gz`, `PromoFull${NH}-001-202611220525.gz`]);
  });

  test("the app answering 500 falls back to the old address", async () => {
    const app = startFakePortal(() => htmlResponse("<html>500 Internal Server Error</html>", 500));
    const old = startFakePortal((_req, url) => {
      if (url.pathname === "/") return htmlResponse(dayTable(rows));
      const m = url.pathname.match(/^\/files\/[\d-]+\/(.+)$/);
      return m ? bytesResponse(files[m[1]!]!) : htmlResponse("not found", 404);
    });
    stops.push(app.stop, old.stop);
    const registry = registryOf({ slug: "netiv-hahesed", chain_codes: [NH], portal: { family: "netivhahesed", base_url: app.url, fallback_url: old.url } });
    const report = await fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    expect(report.chains[0]!.status).toBe("ok");
    expect(report.chains[0]!.portals[0]!.url).toBe(old.url);
    expect(report.chains[0]!.downloaded).toHaveLength(3);
  });

  test("a challenge page with no table reads as blocked, never as files", async () => {
    const portal = startFakePortal(() => htmlResponse("<html><head><title>Just a moment...</title></head><body>Checking your browser</body></html>"));
    stops.push(portal.stop);
    const registry = registryOf({ slug: "netiv-hahesed", chain_codes: [NH], portal: { family: "netivhahesed", base_url: portal.url } });
    const report = await fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    expect(report.chains[0]!.status).toBe("blocked"); // a challenge page is a refusal, not an empty day (issue 40)
  });
});
