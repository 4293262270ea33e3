import { afterAll, describe, expect, test } from "bun:test";
import { fetchChains } from "../../../src/ingest/sources/fetch-chains.ts";
import { loadSettings } from "../../../src/config.ts";
import { FAST_HTTP, DAY, NOW, bytesResponse, jsonResponse, memoryPrices, priceFullGz, registryOf, startFakePortal, tempDir } from "../../helpers/ingest/fake-portal.ts";

// Egress the operator controls: a chain's own `proxy` (MEHIR_SOURCES_FILE) carries its requests
// (a loopback forward proxy here answers for the portal: nothing leaves loopback, no name is
// resolved), and MEHIR_USER_AGENT replaces the User-Agent.

const C = "7290058159628";
const NAME = `PriceFull${C}-001-202611220500.gz`;
const stops: (() => void)[] = [];
afterAll(() => stops.forEach((s) => s()));

describe("egress", () => {
  test("a chain's proxy carries its listing and downloads, with the operator's User-Agent", async () => {
    const seen: { url: string; ua: string | null }[] = [];
    const proxy = startFakePortal((req) => {
      seen.push({ url: req.url, ua: req.headers.get("user-agent") });
      const url = new URL(req.url);
      if (url.pathname === "/") return jsonResponse([{ name: NAME, url: `/f/${NAME}` }]);
      return bytesResponse(priceFullGz(C, "1"));
    });
    stops.push(proxy.stop);
    const registry = registryOf({ slug: "maayan-2000", chain_codes: [C], portal: { family: "meshnatyosef", base_url: "http://portal.mehir-test.invalid" } });
    const ua = loadSettings({ MEHIR_USER_AGENT: "Mozilla/5.0 (X11; Linux x86_64)" }).userAgent!;
    const report = await fetchChains({
      db: memoryPrices(),
      registry,
      dataDir: tempDir(),
      date: DAY,
      http: { ...FAST_HTTP, userAgent: ua },
      sourcesOverride: { "maayan-2000": { proxy: proxy.url } },
      now: NOW,
      log: () => {},
    });
    expect(report.chains[0]!.status).toBe("ok");
    expect(seen.map((s) => s.url)).toEqual(["http://portal.mehir-test.invalid/", `http://portal.mehir-test.invalid/f/${NAME}`]);
    expect(seen.every((s) => s.ua === "Mozilla/5.0 (X11; Linux x86_64)")).toBe(true);
  });
});
