import { afterAll, describe, expect, test } from "bun:test";
import { fetchChains } from "../../../src/ingest/sources/fetch-chains.ts";
import { DAY, FAST_HTTP, NOW, bytesResponse, htmlResponse, memoryPrices, priceFullGz, promoFullGz, registryOf, startFakePortal, storesXml, tempDir } from "../../helpers/ingest/fake-portal.ts";

const SH = "7290027600007";
const CAT = { "2": "pricefull", "4": "promofull", "5": "stores" } as const;

function row(base: string, name: string, sig: string, store: string, category: string): string {
  const link = `${base}/blob/${category}/${name}?sv=2014-02-14&sr=b&sig=${sig}&se=2026-11-22T08%3A30%3A00Z&sp=r`;
  return `<tr class="webgrid-row-style"><td><a href="${link.replaceAll("&", "&amp;")}" target="_blank">לחץ כאן להורדה</a></td><td>11/22/2026 5:00:00 AM</td><td>12.5 KB</td><td>gz</td><td>${category}</td><td>${store} - שלי ת&quot;א- בן יהודה</td><td>${name.replace(/\.gz$/, "")}</td></tr>`;
}

const grid = (rows: string[], page: number) => `<div id="gridContainer"><table class="webgrid"><thead><tr><th>קישור</th><th>תאריך</th></tr></thead>
<tbody>${rows.join("\n")}</tbody><tfoot><tr><td colspan="7"><a href="/FileObject/UpdateCategory?catID=2&amp;storeId=0&amp;page=${page + 1}">&gt;</a></td></tr></tfoot></table></div>`;

describe("Shufersal", () => {
  const stops: (() => void)[] = [];
  afterAll(() => stops.forEach((s) => s()));

  test("403 before cookies, paged HTML table, HTML-escaped signed links, expired link listed again", async () => {
    const files: Record<string, { bytes: Uint8Array; cat: keyof typeof CAT; store: string }> = {
      [`Stores${SH}-000-202611220201.gz`]: { bytes: Bun.gzipSync(storesXml(SH)), cat: "5", store: "0" },
      [`PriceFull${SH}-001-202611220300.gz`]: { bytes: priceFullGz(SH, "1"), cat: "2", store: "1" },
      [`PriceFull${SH}-002-202611220300.gz`]: { bytes: priceFullGz(SH, "2"), cat: "2", store: "2" },
      [`PriceFull${SH}-413-202611220300.gz`]: { bytes: priceFullGz(SH, "413"), cat: "2", store: "413" },
      [`PromoFull${SH}-001-202611220300.gz`]: { bytes: promoFullGz(SH, "1"), cat: "4", store: "1" },
    };
    let refreshed = 0;
    // The session cookie is good for three listing calls; then the portal answers 403 until / is visited again.
    let generation = 1;
    let calls = 0;
    const portal = startFakePortal((req, url) => {
      const hasCookie = (req.headers.get("cookie") ?? "").includes(`TS01a=g${generation}`);
      if (url.pathname === "/") return new Response("<html>Shufersal prices</html>", { headers: { "content-type": "text/html", "set-cookie": `TS01a=g${generation}; Path=/` } });
      if (url.pathname === "/FileObject/UpdateCategory") {
        if (!hasCookie) return htmlResponse("<html>Request Rejected</html>", 403);
        if (++calls === 3) generation++;
        const cat = url.searchParams.get("catID")!;
        const store = url.searchParams.get("storeId")!;
        const page = Number(url.searchParams.get("page"));
        const matching = Object.entries(files).filter(([, f]) => f.cat === cat && (store === "0" || f.store === store));
        if (store !== "0" && page === 1) refreshed++;
        const sig = store === "0" ? "first" : "fresh";
        const perPage = 2;
        const slice = matching.slice((page - 1) * perPage, page * perPage);
        return htmlResponse(grid(slice.map(([name, f]) => row(portal.url, name, sig, f.store, CAT[f.cat])), page));
      }
      const m = url.pathname.match(/^\/blob\/\w+\/(.+)$/);
      if (m) {
        const name = decodeURIComponent(m[1]!);
        // Every parameter arrives separately: the &amp; were decoded.
        if (url.searchParams.get("sp") !== "r" || !url.searchParams.get("sig")) return htmlResponse("AuthenticationFailed", 403);
        if (name.includes("-413-") && url.searchParams.get("sig") === "first") return new Response("<Error><Code>AuthenticationFailed</Code><AuthenticationErrorDetail>Signed expiry time has passed</AuthenticationErrorDetail></Error>", { status: 403, headers: { "content-type": "application/xml" } });
        return bytesResponse(files[name]!.bytes);
      }
      return htmlResponse("not found", 404);
    });
    stops.push(portal.stop);
    const registry = registryOf({ slug: "shufersal", chain_codes: [SH], portal: { family: "shufersal", base_url: portal.url } });
    const report = await fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    const r = report.chains[0]!;
    expect(r.errors).toEqual([]);
    expect(r.status).toBe("ok");
    expect(r.downloaded.map((d) => d.fileName).sort()).toEqual(Object.keys(files).sort());
    expect(refreshed).toBe(1);
    expect(portal.requests[0]!.path).toBe("/");
    expect(portal.requests.filter((q) => q.path === "/").length).toBe(2); // again after the 403
    const listingRequests = portal.requests.filter((q) => q.path === "/FileObject/UpdateCategory");
    expect(listingRequests[0]!.cookie).toBe("TS01a=g1");
    // catID 2 has three files at two per page: pages 1, 2 and an empty 3.
    const pages = listingRequests.filter((q) => q.search.includes("catID=2&storeId=0")).map((q) => new URLSearchParams(q.search).get("page"));
    expect([...new Set(pages)]).toEqual(["1", "2", "3"]);
  });

  test("download right after listing: a link older than a minute is listed again first (once per store), stale pages are not walked", async () => {
    const names = [`PriceFull${SH}-001-202611220300.gz`, `PriceFull${SH}-001-202611210300.gz`, `PriceFull${SH}-002-202611210300.gz`, `PriceFull${SH}-003-202611200300.gz`];
    let now = 1_000_000;
    const blobRequests: string[] = [];
    const portal = startFakePortal((_req, url) => {
      if (url.pathname === "/") return htmlResponse("<html></html>");
      if (url.pathname === "/FileObject/UpdateCategory") {
        const store = url.searchParams.get("storeId")!;
        const page = Number(url.searchParams.get("page"));
        if (url.searchParams.get("catID") !== "2") return htmlResponse(grid([], page));
        // Newest first, two per page; every listing signs its links with the time it was made.
        const matching = names.filter((n) => store === "0" || n.includes(`-${store.padStart(3, "0")}-`)).slice((page - 1) * 2, page * 2);
        return htmlResponse(grid(matching.map((n) => row(portal.url, n, `t${now}`, "1", "pricefull")), page));
      }
      const m = url.pathname.match(/^\/blob\/\w+\/(.+)$/);
      if (m) {
        blobRequests.push(url.searchParams.get("sig")!);
        // A link signed more than a minute ago has expired.
        if (now - Number(url.searchParams.get("sig")!.slice(1)) > 60_000) return new Response("<Error><Code>AuthenticationFailed</Code></Error>", { status: 403 });
        return bytesResponse(priceFullGz(SH, "1"));
      }
      return htmlResponse("not found", 404);
    });
    stops.push(portal.stop);
    const registry = registryOf({ slug: "shufersal", chain_codes: [SH], portal: { family: "shufersal", base_url: portal.url } });
    const chain = registry.chains[0]!;
    const { HttpClient } = await import("../../../src/ingest/sources/http.ts");
    const { ShufersalAdapter } = await import("../../../src/ingest/sources/shufersal.ts");
    const adapter = new ShufersalAdapter({ chain, portal: chain.portal, http: new HttpClient(FAST_HTTP), log: () => {} }, () => now);
    const listed = await adapter.list({ date: DAY, deltas: false });
    // Page 2 holds only yesterday's files: page 3 is never asked for.
    const pages = portal.requests.filter((q) => q.search.includes("catID=2&storeId=0")).map((q) => new URLSearchParams(q.search).get("page"));
    expect(pages).toEqual(["1", "2"]);
    expect(listed.map((f) => f.fileName)).toEqual(names);
    now += 90_000; // the downloads start a minute and a half later
    const first = listed[0]!;
    const res = await adapter.download(first);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    expect(blobRequests).toEqual([`t${now}`]); // never tried the expired link
    const relisted = portal.requests.filter((q) => q.search.includes("storeId=1&"));
    expect(relisted.length).toBeGreaterThan(0);
    // A second file of the same store right after reuses that re-listing.
    const before = portal.requests.length;
    const second = { ...listed[1]!, extra: { ...listed[1]!.extra } };
    await (await adapter.download(second)).arrayBuffer();
    expect(portal.requests.slice(before).every((q) => q.path.startsWith("/blob/"))).toBe(true);
  });

  test("asks for newest first (sort=Time, sortdir=DESC): today's files on the first pages, paging stops at the first page of older days", async () => {
    // Three days of PriceFull, 3 stores a day, 2 rows a page. The portal's own order is oldest
    // first: only the explicit sort puts today's files first.
    const days = ["20261120", "20261121", "20261122"];
    const names = days.flatMap((d) => ["001", "002", "003"].map((st) => `PriceFull${SH}-${st}-${d}0300.gz`));
    const portal = startFakePortal((_req, url) => {
      if (url.pathname === "/") return htmlResponse("<html></html>");
      if (url.pathname === "/FileObject/UpdateCategory") {
        const page = Number(url.searchParams.get("page"));
        if (url.searchParams.get("catID") !== "2") return htmlResponse(grid([], page));
        const newestFirst = url.searchParams.get("sort") === "Time" && url.searchParams.get("sortdir") === "DESC";
        const ordered = newestFirst ? [...names].reverse() : names;
        return htmlResponse(grid(ordered.slice((page - 1) * 2, page * 2).map((n) => row(portal.url, n, "s", n.slice(23, 26), "pricefull")), page));
      }
      return htmlResponse("not found", 404);
    });
    stops.push(portal.stop);
    const registry = registryOf({ slug: "shufersal", chain_codes: [SH], portal: { family: "shufersal", base_url: portal.url } });
    const chain = registry.chains[0]!;
    const { HttpClient } = await import("../../../src/ingest/sources/http.ts");
    const { ShufersalAdapter } = await import("../../../src/ingest/sources/shufersal.ts");
    const adapter = new ShufersalAdapter({ chain, portal: chain.portal, http: new HttpClient(FAST_HTTP), log: () => {} });
    const listed = (await adapter.list({ date: DAY, deltas: false })).map((f) => f.fileName);
    expect(listed.filter((n) => n.includes("-20261122"))).toHaveLength(3);
    // Page 1: two of today's; page 2: today's third and one of yesterday's; page 3 only yesterday's: the last one asked.
    const pages = portal.requests.filter((q) => q.search.includes("catID=2&")).map((q) => new URLSearchParams(q.search).get("page"));
    expect(pages).toEqual(["1", "2", "3"]);
    expect(listed.some((n) => n.includes("-20261120"))).toBe(false);
  });

  test("a listing that keeps answering 403 blocks the chain", async () => {
    const portal = startFakePortal(() => htmlResponse("<html>Request Rejected</html>", 403));
    stops.push(portal.stop);
    const registry = registryOf({ slug: "shufersal", chain_codes: [SH], portal: { family: "shufersal", base_url: portal.url } });
    const report = await fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    expect(report.chains[0]!.status).toBe("blocked"); // a refusal, not a failure (issue 40)
    expect(report.chains[0]!.errors[0]).toContain("HTTP 403");
  });
});
