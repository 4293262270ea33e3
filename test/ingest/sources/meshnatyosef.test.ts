import { afterAll, describe, expect, test } from "bun:test";
import { fetchChains } from "../../../src/ingest/sources/fetch-chains.ts";
import { DAY, FAST_HTTP, NOW, bytesResponse, htmlResponse, jsonResponse, memoryPrices, priceFullGz, registryOf, startFakePortal, storesXml, tempDir } from "../../helpers/ingest/fake-portal.ts";

const MY = "5144744100002";

describe("Meshnat Yosef", () => {
  const stops: (() => void)[] = [];
  afterAll(() => stops.forEach((s) => s()));

  test("worker JSON [{name, url}] with absolute file URLs", async () => {
    const files: Record<string, Uint8Array> = {
      [`Stores${MY}-000-202611220400.xml`]: storesXml(MY),
      [`PriceFull${MY}-001-202611220400.gz`]: priceFullGz(MY, "1"),
      [`PriceFull${MY}-001-202611210400.gz`]: priceFullGz(MY, "1"),
    };
    const portal = startFakePortal((_req, url) => {
      if (url.pathname === "/") return jsonResponse(Object.keys(files).map((name) => ({ name, type: name.startsWith("Stores") ? "stores" : "pricefull", date: "2026-11-22", url: `${portal.url}/r2/${name}` })));
      const m = url.pathname.match(/^\/r2\/(.+)$/);
      return m ? bytesResponse(files[m[1]!]!) : htmlResponse("not found", 404);
    });
    stops.push(portal.stop);
    const registry = registryOf({ slug: "meshnat-yosef", chain_codes: [MY, "2222222"], portal: { family: "meshnatyosef", base_url: portal.url } });
    const report = await fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    expect(report.chains[0]!.status).toBe("ok");
    expect(report.chains[0]!.downloaded.map((d) => d.fileName)).toEqual([`Stores${MY}-000-202611220400.xml`, `PriceFull${MY}-001-202611220400.gz`]);
  });

  test("an HTML answer instead of JSON fails the chain", async () => {
    const portal = startFakePortal(() => htmlResponse("<html>error 1101</html>"));
    stops.push(portal.stop);
    const registry = registryOf({ slug: "meshnat-yosef", chain_codes: [MY], portal: { family: "meshnatyosef", base_url: portal.url } });
    const report = await fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    expect(report.chains[0]!.status).toBe("failed");
    expect(report.chains[0]!.errors[0]).toContain("not JSON");
  });

  test("the worker down: the gov.il-listed pages site is read as a page of file links", async () => {
    const worker = startFakePortal(() => htmlResponse("<html>error 1101</html>", 500));
    const name = `PriceFull${MY}-001-202611220400.gz`;
    const pages = startFakePortal((_req, url) => {
      if (url.pathname === "/") return htmlResponse(`<html><body><h1>K.T.</h1><a href="/about">about</a><ul><li><a href="files/${name}">${name}</a></li></ul></body></html>`);
      if (url.pathname === `/files/${name}`) return bytesResponse(priceFullGz(MY, "1"));
      return htmlResponse("not found", 404);
    });
    stops.push(worker.stop, pages.stop);
    const registry = registryOf({ slug: "meshnat-yosef", chain_codes: [MY], portal: { family: "meshnatyosef", base_url: worker.url, fallback_url: pages.url } });
    const report = await fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: DAY, http: { ...FAST_HTTP, retries: 0 }, now: NOW, log: () => {} });
    expect(report.chains[0]!.status).toBe("ok");
    expect(report.chains[0]!.portals[0]!.url).toBe(pages.url);
    expect(report.chains[0]!.downloaded.map((d) => d.fileName)).toEqual([name]);
  });
});
