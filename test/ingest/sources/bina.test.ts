import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { fetchChains } from "../../../src/ingest/sources/fetch-chains.ts";
import { DAY, FAST_HTTP, NOW, bytesResponse, htmlResponse, jsonResponse, memoryPrices, priceFullGz, registryOf, startFakePortal, storesXml, tempDir, zipOf } from "../../helpers/ingest/fake-portal.ts";

const KS = "7290058108879";
const enc = new TextEncoder();

describe("Bina", () => {
  const stops: (() => void)[] = [];
  afterAll(() => stops.forEach((s) => s()));

  test("per-type JSON listings for the day, Download.aspx → SPath indirection, ZIP under .gz, 500 retried", async () => {
    const zip = zipOf(`PriceFull${KS}-028-202611220600.xml`, enc.encode(`<Root><ChainId>${KS}</ChainId><Items Count="0"/></Root>`));
    const blobs: Record<string, Uint8Array> = {
      [`StoresFull${KS}-000-202611220500.gz`]: Bun.gzipSync(storesXml(KS)),
      [`PriceFull${KS}-028-202611220600.gz`]: zip,
      [`PromoFull${KS}-028-202611220600.GZ`]: Bun.gzipSync(enc.encode(`<Root><Promotions Count="0"/></Root>`)),
      [`NULLPrice${KS}-028-202611220900.gz`]: priceFullGz(KS, "28"),
    };
    const byType: Record<string, string[]> = {
      "1": [`StoresFull${KS}-000-202611220500.gz`],
      "4": [`PriceFull${KS}-028-202611220600.gz`],
      "5": [`PromoFull${KS}-028-202611220600.GZ`],
      "2": [`NULLPrice${KS}-028-202611220900.gz`],
    };
    let firstListing = true;
    const portal = startFakePortal((req, url, body) => {
      if (url.pathname === "/MainIO_Hok.aspx" && req.method === "POST") {
        if (firstListing) {
          firstListing = false;
          return htmlResponse("Server Error in '/' Application.", 500);
        }
        const form = new URLSearchParams(body);
        if (form.get("WDate") !== "22/11/2026") return jsonResponse([]);
        return jsonResponse((byType[form.get("WFileType")!] ?? []).map((FileNm) => ({ FileNm, Store: "28", TypeFile: "x", DateFile: "06:00 22/11/2026" })));
      }
      if (url.pathname === "/Download.aspx") {
        const name = url.searchParams.get("FileNm")!;
        return blobs[name] ? jsonResponse([{ SPath: `/blobs/${encodeURIComponent(name)}` }]) : htmlResponse("not found", 404);
      }
      if (url.pathname.startsWith("/blobs/")) return bytesResponse(blobs[decodeURIComponent(url.pathname.slice(7))]!);
      return htmlResponse("not found", 404);
    });
    stops.push(portal.stop);
    const registry = registryOf({ slug: "king-store", chain_codes: [KS], portal: { family: "bina", base_url: portal.url } });
    const report = await fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    const r = report.chains[0]!;
    expect(r.status).toBe("ok");
    expect(r.downloaded.map((d) => d.fileName)).toEqual([`StoresFull${KS}-000-202611220500.gz`, `PriceFull${KS}-028-202611220600.gz`, `PromoFull${KS}-028-202611220600.GZ`]);
    expect(new Uint8Array(readFileSync(r.downloaded[1]!.path))).toEqual(zip);
    // Deltas were not asked for: WFileType 2 and 3 never requested.
    const types = portal.requests.filter((q) => q.path === "/MainIO_Hok.aspx").map((q) => new URLSearchParams(q.body).get("WFileType"));
    expect(types).toEqual(["1", "1", "4", "5"]);
  });

  test("with deltas, NULL placeholders after the full file are fetched too; direct /Download/ when Download.aspx is gone", async () => {
    const files: Record<string, Uint8Array> = {
      [`PriceFull${KS}-001-202611220600.gz`]: priceFullGz(KS, "1"),
      [`NULLPrice${KS}-001-202611220900.gz`]: priceFullGz(KS, "1"),
    };
    const portal = startFakePortal((_req, url, body) => {
      if (url.pathname === "/MainIO_Hok.aspx") {
        const t = new URLSearchParams(body).get("WFileType");
        const names = t === "4" ? [`PriceFull${KS}-001-202611220600.gz`] : t === "2" ? [`NULLPrice${KS}-001-202611220900.gz`] : [];
        return jsonResponse(names.map((FileNm) => ({ FileNm })));
      }
      if (url.pathname.startsWith("/Download/")) return bytesResponse(files[decodeURIComponent(url.pathname.slice(10))]!);
      return htmlResponse("gone", 404);
    });
    stops.push(portal.stop);
    const registry = registryOf({ slug: "king-store", chain_codes: [KS], portal: { family: "bina", base_url: portal.url } });
    const report = await fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: DAY, deltas: true, http: FAST_HTTP, now: NOW, log: () => {} });
    expect(report.chains[0]!.downloaded.map((d) => d.fileName)).toEqual([`PriceFull${KS}-001-202611220600.gz`, `NULLPrice${KS}-001-202611220900.gz`]);
  });

  test("Download.aspx answering the file itself (bare XML labelled text/html) is saved as is", async () => {
    const xml = storesXml(KS);
    const portal = startFakePortal((_req, url, body) => {
      if (url.pathname === "/MainIO_Hok.aspx") return jsonResponse(new URLSearchParams(body).get("WFileType") === "1" ? [{ FileNm: `StoresFull${KS}-000-202611220500.xml` }] : []);
      if (url.pathname === "/Download.aspx") return new Response(xml, { headers: { "content-type": "text/html; charset=utf-8" } });
      return htmlResponse("not found", 404);
    });
    stops.push(portal.stop);
    const registry = registryOf({ slug: "king-store", chain_codes: [KS], portal: { family: "bina", base_url: portal.url } });
    const report = await fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    expect(new Uint8Array(readFileSync(report.files[0]!))).toEqual(xml);
  });

  test("an empty listing is 'empty', not a success", async () => {
    const portal = startFakePortal(() => jsonResponse([]));
    stops.push(portal.stop);
    const db = memoryPrices();
    const registry = registryOf({ slug: "king-store", chain_codes: [KS], portal: { family: "bina", base_url: portal.url } });
    const report = await fetchChains({ db, registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    expect(report.chains[0]!.status).toBe("empty");
    const h = db.query("SELECT last_success_at, last_error FROM chain_health").get() as { last_success_at: string | null; last_error: string };
    expect(h.last_success_at).toBeNull();
    expect(h.last_error).toContain("no files published for 2026-11-22");
  });
});
