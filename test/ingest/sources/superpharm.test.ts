import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { openDataDir } from "../../../src/db/open.ts";
import { syncRegistry } from "../../../src/db/sync-registry.ts";
import { fetchChains } from "../../../src/ingest/sources/fetch-chains.ts";
import { fetchAndImport } from "../../../src/ingest/sources/fetch-and-import.ts";
import { DAY, FAST_HTTP, NOW, bytesResponse, htmlResponse, jsonResponse, memoryPrices, priceFullGz, promoFullGz, registryOf, startFakePortal, storesXml, tempDir } from "../../helpers/ingest/fake-portal.ts";

const SP = "7290172900007";

const grid = (total: number, rows: { name: string; category: string }[]) => `<!DOCTYPE html><html><body>
<div class="mvc-grid" data-name="files" data-total-rows="${total}" data-rows-per-page="2"><table><thead><tr><th>#</th><th>שם</th><th>תאריך</th><th>סוג</th><th>סניף</th><th></th></tr></thead><tbody>
${rows.map((r, i) => `<tr><td>${i + 1}</td><td>${r.name}</td><td>22/11/2026 05:00</td><td>${r.category}</td><td>1</td><td><a href="/Download/${r.name}?bucketName=superpharm-prices&amp;fileType=${r.category}">הורדה</a></td></tr>`).join("\n")}
</tbody></table></div></body></html>`;

describe("Super-Pharm", () => {
  const stops: (() => void)[] = [];
  afterAll(() => stops.forEach((s) => s()));

  test("paged grid per category and day, JSON href indirection, a 500 on one page retried", async () => {
    const files: Record<string, { bytes: Uint8Array; category: string }> = {
      [`StoresFull${SP}--202611220200.gz`]: { bytes: Bun.gzipSync(storesXml(SP)), category: "Stores" },
      [`PriceFull${SP}-001-202611220500.gz`]: { bytes: priceFullGz(SP, "1"), category: "PriceFull" },
      [`PriceFull${SP}-002-202611220500.gz`]: { bytes: priceFullGz(SP, "2"), category: "PriceFull" },
      [`PriceFull${SP}-667-202611220500.gz`]: { bytes: priceFullGz(SP, "667", 30), category: "PriceFull" },
      [`PromoFull${SP}-001-202611220500.gz`]: { bytes: promoFullGz(SP, "1"), category: "PromoFull" },
    };
    let failedOnce = false;
    const portal = startFakePortal((_req, url) => {
      if (url.pathname === "/") {
        const category = url.searchParams.get("Category-equals");
        if (url.searchParams.get("Date-equals") !== "22/11/2026") return htmlResponse(grid(0, []));
        const page = Number(url.searchParams.get("page"));
        if (category === "PriceFull" && page === 2 && !failedOnce) {
          failedOnce = true;
          return htmlResponse("<html>Server error</html>", 500);
        }
        const matching = Object.entries(files).filter(([, f]) => f.category === category).map(([name, f]) => ({ name, category: f.category }));
        return htmlResponse(grid(matching.length, matching.slice((page - 1) * 2, page * 2)));
      }
      if (url.pathname.startsWith("/Download/")) return jsonResponse({ href: `/files/${url.pathname.slice(10)}?sig=1` });
      if (url.pathname.startsWith("/files/")) return bytesResponse(files[decodeURIComponent(url.pathname.slice(7))]!.bytes);
      return htmlResponse("not found", 404);
    });
    stops.push(portal.stop);
    const registry = registryOf({ slug: "super-pharm", chain_codes: [SP], portal: { family: "superpharm", base_url: portal.url } });
    const report = await fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    const r = report.chains[0]!;
    expect(r.status).toBe("ok");
    expect(r.downloaded.map((d) => d.fileName).sort()).toEqual(Object.keys(files).sort());
    for (const d of r.downloaded) expect(Bun.file(d.path).size).toBe(files[d.fileName]!.bytes.length);
    // data-total-rows=3 at 2 per page: exactly two PriceFull pages.
    const pages = portal.requests.filter((q) => q.search.includes("Category-equals=PriceFull")).map((q) => new URLSearchParams(q.search).get("page"));
    expect([...new Set(pages)]).toEqual(["1", "2"]);
  });

  test("the href JSON is recognised by its bytes even labelled text/html; a file answered directly is saved as is", async () => {
    const direct = `PriceFull${SP}-001-202611220500.gz`;
    const pointed = `PriceFull${SP}-002-202611220500.gz`;
    const bytes: Record<string, Uint8Array<ArrayBuffer>> = { [direct]: priceFullGz(SP, "1"), [pointed]: priceFullGz(SP, "2", 5) };
    const portal = startFakePortal((_req, url) => {
      if (url.pathname === "/") {
        const rows = url.searchParams.get("Category-equals") === "PriceFull" ? [direct, pointed].map((name) => ({ name, category: "PriceFull" })) : [];
        return htmlResponse(grid(rows.length, rows));
      }
      const name = decodeURIComponent(url.pathname.slice("/Download/".length));
      if (name === direct) return bytesResponse(bytes[direct]!, "text/html; charset=utf-8");
      if (name === pointed) return htmlResponse(JSON.stringify({ href: `/blob/${pointed}` }));
      if (url.pathname === `/blob/${pointed}`) return bytesResponse(bytes[pointed]!);
      return htmlResponse("not found", 404);
    });
    stops.push(portal.stop);
    const registry = registryOf({ slug: "super-pharm", chain_codes: [SP], portal: { family: "superpharm", base_url: portal.url } });
    const report = await fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    const r = report.chains[0]!;
    expect(r.status).toBe("ok");
    for (const d of r.downloaded) expect(new Uint8Array(await Bun.file(d.path).arrayBuffer())).toEqual(bytes[d.fileName]!);
    expect(r.downloaded).toHaveLength(2);
  });

  test("the 2026 layout (Root/Items, grouped promotions, Root/SubChains) fetched through the portal, day by day, and imported", async () => {
    // The repository's 2026-shaped fixtures (test/fixtures/ingest/*7290172900007-000-*2026*),
    // published gzipped under .gz names, listed on the day their names carry.
    const fixtures = join(import.meta.dir, "../../fixtures/ingest");
    const published = [
      { name: `Stores${SP}-000-20260824-070016.gz`, fixture: `Stores${SP}-000-20260824-070016.xml`, category: "Stores", day: "24/08/2026" },
      { name: `PriceFull${SP}-000-043-20260910-070110.gz`, fixture: `PriceFull${SP}-000-043-20260910-070110.xml`, category: "PriceFull", day: "10/09/2026" },
      { name: `PromoFull${SP}-000-043-20260910-070112.gz`, fixture: `PromoFull${SP}-000-043-20260910-070112.xml`, category: "PromoFull", day: "10/09/2026" },
    ].map((f) => ({ ...f, bytes: Bun.gzipSync(readFileSync(join(fixtures, f.fixture))) }));
    const portal = startFakePortal((_req, url) => {
      if (url.pathname === "/") {
        const rows = published.filter((f) => f.category === url.searchParams.get("Category-equals") && f.day === url.searchParams.get("Date-equals") && url.searchParams.get("page") === "1");
        return htmlResponse(grid(rows.length, rows.map((f) => ({ name: f.name, category: f.category }))).replaceAll("22/11/2026 05:00", rows[0]?.day ?? ""));
      }
      if (url.pathname.startsWith("/Download/")) return jsonResponse({ href: `/sp_transparency_output_prod_v2/${url.pathname.slice(10)}` });
      const file = published.find((f) => url.pathname === `/sp_transparency_output_prod_v2/${f.name}`);
      return file ? bytesResponse(file.bytes) : htmlResponse("not found", 404);
    });
    stops.push(portal.stop);
    const registry = registryOf({ slug: "super-pharm", chain_codes: [SP], portal: { family: "superpharm", base_url: portal.url } });
    const dataDir = tempDir();
    const db = openDataDir(dataDir);
    try {
      syncRegistry(db.prices, registry);
      const run = (date: string) =>
        fetchAndImport({ db: db.prices, registry, dataDir, chains: ["super-pharm"], date, backfillDays: 0, http: FAST_HTTP, now: () => new Date(`${date}T08:00:00+03:00`), importPriority: "normal", log: () => {} });
      const stores = await run("2026-08-24");
      const prices = await run("2026-09-10");
      const imported = [...(stores.import?.files ?? []), ...(prices.import?.files ?? [])].map((f) => [f.fileName, f.status, f.type, f.chainSlug, f.rows]);
      expect(imported).toEqual([
        [published[0]!.name, "ok", "stores", "super-pharm", 3],
        [published[1]!.name, "ok", "pricefull", "super-pharm", 3],
        [published[2]!.name, "ok", "promofull", "super-pharm", 2],
      ]);
      const price = db.prices
        .query("SELECT pc.price FROM price_current pc JOIN stores s ON s.id = pc.store_id JOIN products p ON p.id = pc.product_id WHERE s.store_code = '43' AND p.barcode = '7290108350043'")
        .get() as { price: number } | null;
      expect(price?.price).toBe(1990);
    } finally {
      db.prices.close();
      db.accounts.close();
    }
  });
});
