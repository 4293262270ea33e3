import { afterAll, describe, expect, test } from "bun:test";
import { CookieJar, HttpClient, HttpError, proxyFor, redact } from "../../../src/ingest/sources/http.ts";
import { FAST_HTTP, htmlResponse, never, startFakePortal } from "../../helpers/ingest/fake-portal.ts";

describe("proxyFor", () => {
  const env = { HTTPS_PROXY: "http://proxy.il:3128", http_proxy: "http://plain.il:8080", NO_PROXY: "internal.example,.corp" };
  test("scheme picks the variable; lowercase names work", () => {
    expect(proxyFor("https://prices.shufersal.co.il/", env)).toBe("http://proxy.il:3128");
    expect(proxyFor("http://prices.super-pharm.co.il/", env)).toBe("http://plain.il:8080");
    expect(proxyFor("https://x.co.il/", { HTTP_PROXY: "http://only-http:1" })).toBe("http://only-http:1");
  });
  test("loopback and NO_PROXY hosts go direct", () => {
    expect(proxyFor("http://127.0.0.1:9/", env)).toBeNull();
    expect(proxyFor("https://internal.example/x", env)).toBeNull();
    expect(proxyFor("https://a.b.corp/x", env)).toBeNull();
    expect(proxyFor("https://x.co.il/", { ...env, NO_PROXY: "*" })).toBeNull();
    expect(proxyFor("https://x.co.il/", {})).toBeNull();
  });
});

describe("redact", () => {
  test("drops signatures and credentials from URLs shown in logs", () => {
    expect(redact("https://pricesprodpublic.blob.core.windows.net/price/x.gz?sv=2014&sig=SECRET")).toBe("https://pricesprodpublic.blob.core.windows.net/price/x.gz?…");
    expect(redact("ftp://RamiLevi:pw@url.retail.publishedprices.co.il/")).toBe("ftp://***@url.retail.publishedprices.co.il/");
    expect(redact("https://prices.carrefour.co.il/20261122/a.gz")).toBe("https://prices.carrefour.co.il/20261122/a.gz");
  });
});

describe("CookieJar", () => {
  test("stores per host, replaces and expires", () => {
    const jar = new CookieJar();
    const h = new Headers();
    h.append("set-cookie", "cftpSID=abc; Path=/; HttpOnly");
    h.append("set-cookie", "other=1");
    jar.store("https://a.example/login", new Response(null, { headers: h }));
    expect(jar.header("https://a.example/file")).toBe("cftpSID=abc; other=1");
    expect(jar.header("https://b.example/")).toBeNull();
    jar.store("https://a.example/", new Response(null, { headers: { "set-cookie": "other=; Max-Age=0" } }));
    expect(jar.header("https://a.example/")).toBe("cftpSID=abc");
  });
});

describe("HttpClient", () => {
  let failures = 0;
  let slowHits = 0;
  const portal = startFakePortal(async (req, url) => {
    if (url.pathname === "/flaky") return failures++ < 2 ? htmlResponse("oops", 500) : htmlResponse("fine");
    if (url.pathname === "/slow") {
      slowHits++;
      return never(req);
    }
    if (url.pathname === "/redirect") return new Response(null, { status: 302, headers: { location: "/landing", "set-cookie": "sid=42" } });
    if (url.pathname === "/landing") return htmlResponse("landed");
    if (url.pathname === "/forbidden") return htmlResponse("no", 403);
    return htmlResponse("?", 404);
  });
  afterAll(() => portal.stop());

  test("retries 500s with backoff, then succeeds; sends the User-Agent", async () => {
    const http = new HttpClient({ ...FAST_HTTP, retries: 3, userAgent: "mehir-test/1" });
    const res = await http.text(portal.url + "/flaky");
    expect(res.text).toBe("fine");
    expect(portal.requests.filter((r) => r.path === "/flaky")).toHaveLength(3);
    expect(portal.requests.at(-1)!.ua).toBe("mehir-test/1");
  });

  test("times out each attempt and gives up after the retries", async () => {
    // The server never answers: only the client's timeout ends each attempt.
    const http = new HttpClient({ ...FAST_HTTP, timeoutMs: 80, retries: 1 });
    const error = await http.text(portal.url + "/slow").catch((e) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect(error.message).toBe("timed out after 80 ms");
    expect(slowHits).toBe(2);
  });

  test("keeps cookies set on a redirect", async () => {
    const http = new HttpClient(FAST_HTTP);
    expect((await http.text(portal.url + "/redirect")).text).toBe("landed");
    expect(portal.requests.at(-1)!.cookie).toBe("sid=42");
  });

  test("a 403 is not retried", async () => {
    const http = new HttpClient({ ...FAST_HTTP, retries: 3 });
    const before = portal.requests.length;
    const error = await http.text(portal.url + "/forbidden").catch((e) => e);
    expect(error.status).toBe(403);
    expect(portal.requests.length - before).toBe(1);
  });
});

describe("HTTP_PROXY", () => {
  test("a chain's real portal address is reached only through the configured proxy", async () => {
    const { fetchChains } = await import("../../../src/ingest/sources/fetch-chains.ts");
    const { loadRegistry } = await import("../../../src/registry.ts");
    const { DAY, NOW, memoryPrices, priceFullGz, tempDir, bytesResponse } = await import("../../helpers/ingest/fake-portal.ts");
    const SP = "7290172900007";
    const name = `PriceFull${SP}-001-202611220500.gz`;
    const seen: { url: string; ua: string | null }[] = [];
    // A forward proxy on loopback: plain-HTTP requests arrive in absolute form, e.g. `GET http://prices.super-pharm.co.il/?…`.
    const proxy = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        seen.push({ url: req.url, ua: req.headers.get("user-agent") });
        const url = new URL(req.url);
        if (url.hostname !== "prices.super-pharm.co.il") return new Response("wrong host", { status: 502 });
        if (url.pathname === "/") {
          const rows = url.searchParams.get("Category-equals") === "PriceFull" && url.searchParams.get("page") === "1"
            ? `<tr><td>1</td><td>${name}</td><td>22/11/2026 05:00</td><td>PriceFull</td><td>1</td><td><a href="/Download/${name}?bucketName=b">הורדה</a></td></tr>`
            : "";
          return new Response(`<table><tbody>${rows}</tbody></table>`, { headers: { "content-type": "text/html" } });
        }
        if (url.pathname === `/Download/${name}`) return bytesResponse(priceFullGz(SP, "1"));
        return new Response("not found", { status: 404 });
      },
    });
    try {
      const report = await fetchChains({
        db: memoryPrices(),
        registry: loadRegistry(),
        chains: ["super-pharm"],
        dataDir: tempDir(),
        date: DAY,
        now: NOW,
        log: () => {},
        http: { ...FAST_HTTP, env: { HTTP_PROXY: `http://127.0.0.1:${proxy.port}` } },
      });
      expect(report.chains[0]!.downloaded.map((d) => d.fileName)).toEqual([name]);
      expect(seen.length).toBeGreaterThanOrEqual(4);
      expect(seen.every((s) => s.url.startsWith("http://prices.super-pharm.co.il/"))).toBe(true);
      expect(seen.every((s) => s.ua?.startsWith("mehir/"))).toBe(true);
    } finally {
      proxy.stop(true);
    }
  });
});
