import { afterAll, describe, expect, test } from "bun:test";
import { fetchChains } from "../../../src/ingest/sources/fetch-chains.ts";
import { DAY, FAST_HTTP, NOW, bytesResponse, htmlResponse, memoryPrices, priceFullGz, registryOf, startFakePortal, tempDir } from "../../helpers/ingest/fake-portal.ts";

const W = "7290058249350";
const enc = new TextEncoder();

describe("Wolt", () => {
  const stops: (() => void)[] = [];
  afterAll(() => stops.forEach((s) => s()));

  const files: Record<string, Uint8Array> = {
    [`Stores${W}-000-20261122-010000.gz`]: Bun.gzipSync(enc.encode(`<Root><ChainID>${W}</ChainID><SubChains/></Root>`)),
    [`PriceFull${W}-000-038-20261122-050000.gz`]: priceFullGz(W, "38"),
    // A venue with legitimately empty promotions: 187 bytes in the real sample.
    [`PromoFull${W}-000-038-20261122-050000.gz`]: Bun.gzipSync(enc.encode(`<?xml version="1.0" encoding="UTF-8"?><Root><ChainID>${W}</ChainID><SubChainID>000</SubChainID><StoreID>038</StoreID><Promotions/></Root>`)),
    [`Price${W}-000-038-20261122-090000.gz`]: priceFullGz(W, "38"),
  };

  function woltPortal() {
    return startFakePortal((_req, url) => {
      const base = "/isr-prices/public/v1";
      if (url.pathname === `${base}/index.html`) return htmlResponse(`<html><body><h1>Wolt Market prices</h1><ul><li><a href="2026-11-21.html">2026-11-21</a></li><li><a href="2026-11-22.html">2026-11-22</a></li></ul></body></html>`);
      if (url.pathname === `${base}/2026-11-22.html`) return htmlResponse(`<html><body><ul>${Object.keys(files).map((n) => `<li><a href="download/2026-11-22/${n}">${n}</a></li>`).join("")}</ul></body></html>`);
      const m = url.pathname.match(/download\/2026-11-22\/(.+)$/);
      return m && files[m[1]!] ? bytesResponse(files[m[1]!]!) : htmlResponse("not found", 404);
    });
  }

  test("daily index page → day page → relative download links; deltas only when asked", async () => {
    const portal = woltPortal();
    stops.push(portal.stop);
    const registry = registryOf({ slug: "wolt-market", chain_codes: [W], portal: { family: "wolt", base_url: portal.url + "/isr-prices/public/v1" } });
    const plain = await fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    expect(plain.chains[0]!.downloaded.map((d) => d.fileName)).toEqual([`Stores${W}-000-20261122-010000.gz`, `PriceFull${W}-000-038-20261122-050000.gz`, `PromoFull${W}-000-038-20261122-050000.gz`]);
    const withDeltas = await fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: DAY, deltas: true, http: FAST_HTTP, now: NOW, log: () => {} });
    expect(withDeltas.chains[0]!.downloaded.map((d) => d.fileName)).toContain(`Price${W}-000-038-20261122-090000.gz`);
  });

  test("a day missing from the index is empty", async () => {
    const portal = woltPortal();
    stops.push(portal.stop);
    const registry = registryOf({ slug: "wolt-market", chain_codes: [W], portal: { family: "wolt", base_url: portal.url + "/isr-prices/public/v1" } });
    const report = await fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: "2026-11-23", http: FAST_HTTP, now: NOW, log: () => {} });
    expect(report.chains[0]!.status).toBe("empty");
  });
});
