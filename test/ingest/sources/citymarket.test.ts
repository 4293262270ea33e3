import { afterAll, describe, expect, test } from "bun:test";
import { fetchChains } from "../../../src/ingest/sources/fetch-chains.ts";
import { DAY, FAST_HTTP, NOW, bytesResponse, htmlResponse, jsonResponse, memoryPrices, priceFullGz, promoFullGz, registryOf, startFakePortal, tempDir } from "../../helpers/ingest/fake-portal.ts";

const SHOPS = "7290000000003";
const KG = "7290058266241";

describe("City Market", () => {
  const stops: (() => void)[] = [];
  afterAll(() => stops.forEach((s) => s()));

  test("shop-site table with opaque /downloadFile links plus the Bina Kiryat Gat portal, merged into one chain", async () => {
    const shopFiles: Record<string, { guid: string; bytes: Uint8Array }> = {
      [`PriceFull${SHOPS}-008-202611220500`]: { guid: "3f1c9a2e-0001", bytes: priceFullGz(SHOPS, "8") },
      [`PromoFull${SHOPS}-008-202611220500`]: { guid: "3f1c9a2e-0002", bytes: promoFullGz(SHOPS, "8") },
      [`PriceFull${SHOPS}-023-202611220500`]: { guid: "3f1c9a2e-0003", bytes: priceFullGz(SHOPS, "23") },
    };
    const shops = startFakePortal((_req, url) => {
      if (url.pathname === "/") {
        const page = Number(url.searchParams.get("p"));
        if (url.searchParams.get("d") !== DAY || page > 1) return htmlResponse(`<table><tbody></tbody></table>`);
        return htmlResponse(`<html><body><select id="ddlStores"><option value="">הכל</option><option value="008">008 - טאואר</option></select>
<table class="table"><thead><tr><th>זמן</th><th>סניף</th><th>שם</th><th>סוג</th><th>גודל</th><th>מלא</th><th>הורדה</th></tr></thead><tbody>
${Object.entries(shopFiles).map(([name, f]) => `<tr><td>22/11/2026 05:00</td><td>${name.split("-")[1]} - סניף</td><td>${name}</td><td>${name.startsWith("Promo") ? "Promo" : "Price"}</td><td>4.2 KB</td><td>כן</td><td><a href="/downloadFile/${f.guid}">הורדה</a></td></tr>`).join("\n")}
</tbody></table><ul><li class="pagination-item"><a href="?p=1">1</a></li></ul></body></html>`);
      }
      const m = url.pathname.match(/^\/downloadFile\/(.+)$/);
      const entry = m && Object.values(shopFiles).find((f) => f.guid === m[1]);
      return entry ? bytesResponse(entry.bytes) : htmlResponse("not found", 404);
    });
    const kgName = `PriceFull${KG}-001-202611220600.gz`;
    const bina = startFakePortal((_req, url, body) => {
      if (url.pathname === "/MainIO_Hok.aspx") return jsonResponse(new URLSearchParams(body).get("WFileType") === "4" ? [{ FileNm: kgName }] : []);
      if (url.pathname === "/Download.aspx") return jsonResponse([{ SPath: `${bina.url}/files/${kgName}` }]);
      if (url.pathname === `/files/${kgName}`) return bytesResponse(priceFullGz(KG, "1"));
      return htmlResponse("not found", 404);
    });
    stops.push(shops.stop, bina.stop);
    const registry = registryOf({
      slug: "city-market",
      chain_codes: [KG, SHOPS],
      portal: { family: "citymarket", base_url: shops.url },
      extra_portals: [{ family: "bina", base_url: bina.url }],
    });
    const report = await fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    const r = report.chains[0]!;
    expect(r.status).toBe("ok");
    expect(r.portals.map((p) => [p.family, p.listed])).toEqual([["citymarket", 3], ["bina", 1]]);
    expect(r.downloaded.map((d) => d.fileName).sort()).toEqual([...Object.keys(shopFiles), kgName].sort());
  });

  test("links of any shape: a row's single link is taken when a cell names the file", async () => {
    const name = `PriceFull${SHOPS}-008-202611220500`;
    const shops = startFakePortal((_req, url) => {
      if (url.pathname === "/") {
        if (Number(url.searchParams.get("p")) > 1) return htmlResponse(`<table><tbody></tbody></table>`);
        return htmlResponse(`<table class="table"><thead><tr><th>זמן</th><th>סניף</th><th>שם</th><th>סוג</th><th>מלא</th><th>גודל</th><th>הורדה</th></tr></thead><tbody>
<tr><td>22/11/2026 05:00</td><td>008 - טאואר</td><td>${name}</td><td>Price</td><td>כן</td><td>4.2</td><td><a href="file?id=77">הורדה</a></td></tr></tbody></table>`);
      }
      if (url.pathname === "/file" && url.searchParams.get("id") === "77") return bytesResponse(priceFullGz(SHOPS, "8"));
      return htmlResponse("not found", 404);
    });
    stops.push(shops.stop);
    const registry = registryOf({ slug: "city-market", chain_codes: [SHOPS], portal: { family: "citymarket", base_url: shops.url } });
    const report = await fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    expect(report.chains[0]!.status).toBe("ok");
    expect(report.chains[0]!.downloaded.map((d) => d.fileName)).toEqual([name]);
  });

  test("one portal down: the other's files still arrive, the chain is partial", async () => {
    const down = startFakePortal(() => htmlResponse("Service Unavailable", 503));
    const kgName = `PriceFull${KG}-001-202611220600.gz`;
    const bina = startFakePortal((_req, url, body) => {
      if (url.pathname === "/MainIO_Hok.aspx") return jsonResponse(new URLSearchParams(body).get("WFileType") === "4" ? [{ FileNm: kgName }] : []);
      if (url.pathname === "/Download.aspx") return jsonResponse([{ SPath: `/files/${kgName}` }]);
      return bytesResponse(priceFullGz(KG, "1"));
    });
    stops.push(down.stop, bina.stop);
    const db = memoryPrices();
    const registry = registryOf({ slug: "city-market", chain_codes: [KG, SHOPS], portal: { family: "citymarket", base_url: down.url }, extra_portals: [{ family: "bina", base_url: bina.url }] });
    const report = await fetchChains({ db, registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    expect(report.chains[0]!.status).toBe("partial");
    expect(report.chains[0]!.downloaded).toHaveLength(1);
    const h = db.query("SELECT last_success_at, last_error, files_fetched FROM chain_health").get() as Record<string, unknown>;
    expect(h.last_success_at).toBe("2026-11-22T10:00:00+02:00");
    expect(h.files_fetched).toBe(1);
    expect(String(h.last_error)).toContain("HTTP 503");
  });
});
