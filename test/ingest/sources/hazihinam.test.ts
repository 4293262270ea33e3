import { afterAll, describe, expect, test } from "bun:test";
import { fetchChains } from "../../../src/ingest/sources/fetch-chains.ts";
import { DAY, FAST_HTTP, NOW, bytesResponse, htmlResponse, memoryPrices, priceFullGz, promoFullGz, registryOf, startFakePortal, storesXml, tempDir } from "../../helpers/ingest/fake-portal.ts";

const HH = "7290700100008";

describe("Hazi Hinam", () => {
  const stops: (() => void)[] = [];
  afterAll(() => stops.forEach((s) => s()));

  test("paged tables per kind for the day, links straight to the blobs, NULL placeholder skipped", async () => {
    const files: Record<string, { bytes: Uint8Array; t: string }> = {
      [`Stores${HH}-000-20261122-020000.xml`]: { bytes: storesXml(HH), t: "3" },
      [`PriceFull${HH}-000-207-20261122-050000.gz`]: { bytes: priceFullGz(HH, "207"), t: "1" },
      [`PriceFull${HH}-000-208-20261122-050000.gz`]: { bytes: priceFullGz(HH, "208"), t: "1" },
      [`PromoFull${HH}-000-207-20261122-050000.gz`]: { bytes: promoFullGz(HH, "207"), t: "2" },
      [`NULLPromo${HH}-000-208-20261122-090000.gz`]: { bytes: promoFullGz(HH, "208"), t: "2" },
    };
    const portal = startFakePortal((_req, url) => {
      if (url.pathname === "/Prices") {
        if (url.searchParams.get("d") !== DAY) return htmlResponse("<table><tbody></tbody></table>");
        const t = url.searchParams.get("t");
        const page = Number(url.searchParams.get("p"));
        const rows = Object.entries(files).filter(([, f]) => f.t === t).slice((page - 1) * 2, page * 2);
        return htmlResponse(`<html><body><table class="table"><thead><tr><th>שם קובץ</th><th>סניף</th><th>תאריך</th><th>גודל</th><th>הורדה</th></tr></thead><tbody>
${rows.map(([name]) => `<tr><td>${name.replace(/\.(gz|xml)$/, "")}</td><td>207 - חצי חינם</td><td>22/11/2026 05:00</td><td>3.1 KB</td><td><a href="${portal.url}/blob/prices/${name}" target="_blank">הורדה</a></td></tr>`).join("\n")}
</tbody></table><ul class="pagination"><li class="page-item"><a href="?t=${t}&p=${page + 1}">הבא</a></li></ul></body></html>`);
      }
      const m = url.pathname.match(/^\/blob\/prices\/(.+)$/);
      return m ? bytesResponse(files[decodeURIComponent(m[1]!)]!.bytes) : htmlResponse("not found", 404);
    });
    stops.push(portal.stop);
    const registry = registryOf({ slug: "hazi-hinam", chain_codes: [HH], portal: { family: "hazihinam", base_url: portal.url + "/Prices" } });
    const report = await fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    const r = report.chains[0]!;
    expect(r.status).toBe("ok");
    expect(r.downloaded.map((d) => d.fileName).sort()).toEqual(Object.keys(files).filter((n) => !n.startsWith("NULL")).sort());
    expect(r.dropped.delta).toBe(1);
  });
});
