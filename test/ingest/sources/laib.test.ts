import { afterAll, describe, expect, test } from "bun:test";
import { fetchChains } from "../../../src/ingest/sources/fetch-chains.ts";
import { DAY, FAST_HTTP, NOW, bytesResponse, htmlResponse, jsonResponse, memoryPrices, priceFullGz, promoFullGz, registryOf, startFakePortal, storesXml, tempDir } from "../../helpers/ingest/fake-portal.ts";

const V1 = "7290696200003";
const V2 = "7290058103393";

describe("Laib catalog", () => {
  const stops: (() => void)[] = [];
  afterAll(() => stops.forEach((s) => s()));

  test("one listing per chain code, repeated rows de-duplicated, downloads under /webapi/<code>/", async () => {
    const rows = (code: string) => [
      { branchNumber: 1, fileName: `PriceFull${code}-001-202611220303.xml.gz`, fileType: "PriceFull", fileDate: "2026-11-22 03:03:00", fileSize: "562.84 KB" },
      { branchNumber: 2, fileName: `PriceFull${code}-001-202611220303.xml.gz`, fileType: "PriceFull", fileDate: "2026-11-22 03:03:00", fileSize: "562.84 KB" },
      { branchNumber: 1, fileName: `PromoFull${code}-001-202611220303.xml.gz`, fileType: "PromoFull", fileDate: "2026-11-22 03:03:00", fileSize: "12 KB" },
      { branchNumber: 0, fileName: `StoresFull${code}-000-202611220600.xml`, fileType: "StoresFull", fileDate: "2026-11-22 06:00:00", fileSize: "35 KB" },
    ];
    const portal = startFakePortal((_req, url) => {
      if (url.pathname === "/webapi/api/getfiles") {
        const edi = url.searchParams.get("edi")!;
        return edi === V1 ? jsonResponse(rows(V1)) : edi === V2 ? jsonResponse([]) : htmlResponse("bad edi", 400);
      }
      const m = url.pathname.match(/^\/webapi\/(\d+)\/(.+)$/);
      if (m && m[1] === V1) {
        const name = decodeURIComponent(m[2]!);
        if (name.startsWith("Stores")) return bytesResponse(storesXml(V1));
        return bytesResponse(name.startsWith("Promo") ? promoFullGz(V1, "1") : priceFullGz(V1, "1"));
      }
      return htmlResponse("not found", 404);
    });
    stops.push(portal.stop);
    const registry = registryOf({ slug: "victory", chain_codes: [V1, V2], portal: { family: "laib", base_url: portal.url, folder: "victory" } });
    const report = await fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    const r = report.chains[0]!;
    expect(r.status).toBe("ok");
    expect(r.listed).toBe(3);
    expect(r.downloaded.map((d) => d.fileName)).toEqual([`StoresFull${V1}-000-202611220600.xml`, `PriceFull${V1}-001-202611220303.xml.gz`, `PromoFull${V1}-001-202611220303.xml.gz`]);
    expect(portal.requests.filter((q) => q.path === "/webapi/api/getfiles").map((q) => q.search)).toEqual([`?edi=${V1}`, `?edi=${V2}`]);
  });

  test("an empty chain-wide listing is read branch by branch; a secondary code's file missing under it comes from the primary path", async () => {
    const branchFiles: Record<string, string[]> = {
      "1": [`PriceFull${V2}-001-202611220303.xml.gz`, `StoresFull${V2}-000-202611220600.xml`],
      "2": [`PriceFull${V2}-002-202611220303.xml.gz`, `StoresFull${V2}-000-202611220600.xml`],
    };
    const portal = startFakePortal((_req, url) => {
      const edi = url.searchParams.get("edi");
      if (url.pathname === "/webapi/api/getfiles") {
        const branch = url.searchParams.get("branchNumber");
        if (edi !== V2 || !branch) return jsonResponse([]);
        return jsonResponse((branchFiles[branch] ?? []).map((fileName) => ({ branchNumber: Number(branch), fileName, fileType: "PriceFull", fileDate: "2026-11-22 03:03:00", fileSize: "1 KB" })));
      }
      if (url.pathname === "/webapi/api/getbranches") return jsonResponse(edi === V2 ? [{ number: 1, name: "א" }, { number: 2, name: "ב" }] : []);
      const m = url.pathname.match(/^\/webapi\/(\d+)\/(.+)$/);
      if (m && m[1] === V1) {
        const name = decodeURIComponent(m[2]!);
        return bytesResponse(name.startsWith("Stores") ? storesXml(V2) : priceFullGz(V2, name.split("-")[1]!));
      }
      return htmlResponse("not found", 404);
    });
    stops.push(portal.stop);
    const registry = registryOf({ slug: "victory", chain_codes: [V1, V2], portal: { family: "laib", base_url: portal.url } });
    const report = await fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    const r = report.chains[0]!;
    expect(r.status).toBe("ok");
    expect(r.listed).toBe(3);
    expect(r.downloaded.map((d) => d.fileName).sort()).toEqual([`PriceFull${V2}-001-202611220303.xml.gz`, `PriceFull${V2}-002-202611220303.xml.gz`, `StoresFull${V2}-000-202611220600.xml`]);
    expect(portal.requests.filter((q) => q.path === `/webapi/${V2}/PriceFull${V2}-001-202611220303.xml.gz`)).toHaveLength(1);
  });

  test("a portal refusing every code (geo-block answered with 403) blocks the chain", async () => {
    const portal = startFakePortal(() => htmlResponse("<html>Access denied</html>", 403));
    stops.push(portal.stop);
    const registry = registryOf({ slug: "victory", chain_codes: [V1, V2], portal: { family: "laib", base_url: portal.url } });
    const report = await fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    expect(report.chains[0]!.status).toBe("blocked");
    expect(report.chains[0]!.errors[0]).toContain("HTTP 403");
  });
});
