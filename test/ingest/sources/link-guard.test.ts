import { afterAll, describe, expect, test } from "bun:test";
import { fetchChains } from "../../../src/ingest/sources/fetch-chains.ts";
import { checkPortalLink, passiveAddress, RefusedLinkError, siteOf } from "../../../src/ingest/sources/link-guard.ts";
import { DAY, FAST_HTTP, NOW, bytesResponse, htmlResponse, jsonResponse, memoryPrices, priceFullGz, registryOf, startFakePortal, tempDir } from "../../helpers/ingest/fake-portal.ts";

// Links a portal hands out (Bina's SPath, Super-Pharm's {href}, an FTP server's PASV address)
// must not take the fetcher into the operator's network. Every URL here is a literal address or
// refused before any request: no name is looked up.

describe("checkPortalLink", () => {
  const portal = "https://prices.super-pharm.co.il/";
  const from = "https://prices.super-pharm.co.il/Download/a.gz?bucketName=x";

  test("a link on the portal's own site is followed, resolved against the page that gave it", () => {
    expect(checkPortalLink("/files/a.gz?sig=1", from, portal)).toBe("https://prices.super-pharm.co.il/files/a.gz?sig=1");
    expect(checkPortalLink("https://kingstore.binaprojects.com/Download/a.gz", "https://kingstore.binaprojects.com/Download.aspx?FileNm=a", "https://kingstore.binaprojects.com")).toBe("https://kingstore.binaprojects.com/Download/a.gz");
    // Another host of the same site (Bina's file hosts).
    expect(checkPortalLink("https://files.binaprojects.com/a.gz", "https://kingstore.binaprojects.com/Download.aspx", "https://kingstore.binaprojects.com")).toBe("https://files.binaprojects.com/a.gz");
  });

  test("another site, a private, loopback or link-local address, localhost or another scheme is refused", () => {
    const refused = (link: string, base = portal) => {
      try {
        checkPortalLink(link, from, base);
      } catch (error) {
        expect(error).toBeInstanceOf(RefusedLinkError);
        return (error as Error).message;
      }
      return "followed";
    };
    expect(refused("https://evil.example/a.gz")).toContain("another site than the portal's (prices.super-pharm.co.il)");
    expect(refused("https://shufersal.co.il/a.gz")).toContain("another site");
    expect(refused("http://10.0.0.5/a.gz")).toContain("private or loopback address");
    expect(refused("http://169.254.169.254/latest/meta-data/")).toContain("private or loopback address");
    expect(refused("http://127.0.0.1:8080/a.gz")).toContain("private or loopback address");
    expect(refused("http://[::1]/a.gz")).toContain("private or loopback address");
    expect(refused("http://localhost/a.gz")).toContain("private or loopback address");
    expect(refused("file:///etc/passwd")).toContain("not http(s)");
    // A portal the operator put on a loopback address (MEHIR_SOURCES_FILE) may link to itself, not elsewhere.
    expect(refused("http://127.0.0.1:9/f/a.gz", "http://127.0.0.1:8000")).toBe("followed");
    expect(refused("http://127.0.0.2:8000/f/a.gz", "http://127.0.0.1:8000")).toContain("private or loopback address");
  });

  test("siteOf keeps a country's second level", () => {
    expect(siteOf("url.retail.publishedprices.co.il")).toBe("publishedprices.co.il");
    expect(siteOf("kingstore.binaprojects.com")).toBe("binaprojects.com");
    expect(siteOf("127.0.0.1")).toBe("127.0.0.1");
  });
});

describe("passiveAddress (FTP PASV)", () => {
  test("the server's address when public or the control connection's own; the control host instead of a private or loopback one", () => {
    expect(passiveAddress("url.retail.publishedprices.co.il", "8.8.4.4", "8.8.8.8")).toBe("8.8.4.4");
    expect(passiveAddress("url.retail.publishedprices.co.il", "10.0.0.1", "8.8.8.8")).toBe("url.retail.publishedprices.co.il");
    expect(passiveAddress("url.retail.publishedprices.co.il", "127.0.0.1", "8.8.8.8")).toBe("url.retail.publishedprices.co.il");
    expect(passiveAddress("url.retail.publishedprices.co.il", "192.168.1.20", "::ffff:192.168.1.20")).toBe("192.168.1.20");
    expect(passiveAddress("127.0.0.1", "127.0.0.1", "127.0.0.1")).toBe("127.0.0.1");
    expect(passiveAddress("127.0.0.1", "127.0.0.2", "127.0.0.1")).toBe("127.0.0.1");
  });
});

describe("portal links in a fetch", () => {
  const SP = "7290172900007";
  const KS = "7290058108879";
  const stops: (() => void)[] = [];
  afterAll(() => stops.forEach((s) => s()));

  test("Super-Pharm's href and Bina's SPath to another address are refused and reported; the target is never asked", async () => {
    // A server on another loopback address the portals point at: it must see no request.
    let insideRequests = 0;
    const inside = Bun.serve({ hostname: "127.0.0.2", port: 0, fetch: () => (insideRequests++, new Response("secret")) });
    stops.push(() => inside.stop(true));
    const insideUrl = `http://127.0.0.2:${inside.port}`;
    const good = `PriceFull${SP}-001-202611220500.gz`;
    const bad = `PriceFull${SP}-002-202611220500.gz`;
    const pharm = startFakePortal((_req, url) => {
      if (url.pathname === "/") {
        const rows = url.searchParams.get("Category-equals") === "PriceFull" ? [good, bad] : [];
        const tr = rows.map((n) => `<tr><td>1</td><td>${n}</td><td>22/11/2026 05:00</td><td>PriceFull</td><td>1</td><td><a href="/Download/${n}?bucketName=b">הורדה</a></td></tr>`);
        return htmlResponse(`<div class="mvc-grid" data-total-rows="${rows.length}"><table><tbody>${tr.join("")}</tbody></table></div>`);
      }
      if (url.pathname === `/Download/${good}`) return jsonResponse({ href: `/files/${good}` });
      if (url.pathname === `/Download/${bad}`) return jsonResponse({ href: `${insideUrl}/files/${bad}` });
      if (url.pathname === `/files/${good}`) return bytesResponse(priceFullGz(SP, "1"));
      return htmlResponse("not found", 404);
    });
    const bina = startFakePortal((_req, url, body) => {
      if (url.pathname === "/MainIO_Hok.aspx") return jsonResponse(new URLSearchParams(body).get("WFileType") === "4" ? [{ FileNm: `PriceFull${KS}-001-202611220500.gz`, DateFile: "22/11/2026 05:00" }] : []);
      if (url.pathname === "/Download.aspx") return jsonResponse([{ SPath: "https://files.elsewhere.example/a.gz" }]);
      return htmlResponse("not found", 404);
    });
    stops.push(pharm.stop, bina.stop);
    const registry = registryOf(
      { slug: "super-pharm", chain_codes: [SP], portal: { family: "superpharm", base_url: pharm.url } },
      { slug: "king-store", chain_codes: [KS], portal: { family: "bina", base_url: bina.url } },
    );
    const report = await fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    const by = Object.fromEntries(report.chains.map((c) => [c.slug, c]));
    expect(by["super-pharm"]!.downloaded.map((d) => d.fileName)).toEqual([good]);
    expect(by["super-pharm"]!.status).toBe("partial");
    expect(by["super-pharm"]!.errors).toEqual([expect.stringContaining(`${bad}: the portal's link http://127.0.0.2:${inside.port}/files/${bad} goes to a private or loopback address: refused`)]);
    expect(by["king-store"]!.status).toBe("failed");
    expect(by["king-store"]!.statusReason).toContain("goes to another site than the portal's (127.0.0.1): refused");
    expect(insideRequests).toBe(0);
    // Refused, not retried: one Download.aspx request per file.
    expect(bina.requests.filter((r) => r.path === "/Download.aspx")).toHaveLength(1);
  });
});
