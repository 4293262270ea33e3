import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { createApp } from "../../../src/app.ts";
import { createServices, type Services } from "../../../src/services.ts";
import { loadSettings } from "../../../src/config.ts";
import { DataState } from "../../../src/data/data-state.ts";
import { openDataDir, type Databases } from "../../../src/db/open.ts";
import { syncRegistry } from "../../../src/db/sync-registry.ts";
import { fetchAndImport, type FetchAndImportResult } from "../../../src/ingest/sources/fetch-and-import.ts";
import type { SourcesOverride } from "../../../src/ingest/sources/overrides.ts";
import { loadRegistry } from "../../../src/registry.ts";
import { newKey } from "../../helpers/keys.ts";
import { startFakeFtp } from "../../helpers/ingest/fake-ftp.ts";
import { FAST_HTTP, bytesResponse, htmlResponse, jsonResponse, startFakePortal, tempDir, zipOf, type FakePortal } from "../../helpers/ingest/fake-portal.ts";

// Every portal family end to end, from the real registry's chains: a loopback portal in the
// family's real shape (research notes §2, the published scrapers' selectors) → listing →
// download → import in the worker → the API. Real portal hosts are never contacted: every chain
// of the run points at a fake through the sources override (extra portals included).

const DAY = "2026-11-22";
const NOW = new Date("2026-11-22T08:00:00Z");
const registry = loadRegistry();
const enc = new TextEncoder();

/** A GTIN-13 with its check digit, so the product is shared across chains. */
function gtin(body12: string): string {
  const sum = [...body12].reduce((s, d, i) => s + Number(d) * (i % 2 ? 3 : 1), 0);
  return body12 + ((10 - (sum % 10)) % 10);
}
const SHARED = gtin("729000012345");

interface ChainFiles {
  code: string;
  store: string;
  /** name → bytes, in the names the family publishes. */
  files: Record<string, Uint8Array>;
}

const storesXml = (code: string, store: string) =>
  enc.encode(
    `\uFEFF<?xml version="1.0" encoding="utf-8"?><Root><XmlDocVersion>1.0</XmlDocVersion><ChainId>${code}</ChainId><ChainName>רשת</ChainName><SubChains><SubChain><SubChainId>1</SubChainId><SubChainName>1</SubChainName><Stores>` +
      `<Store><StoreId>${store}</StoreId><BikoretNo>1</BikoretNo><StoreType>1</StoreType><StoreName>סניף ${store}</StoreName><Address>הרצל 1</Address><City>חיפה</City><ZipCode>0</ZipCode></Store>` +
      `</Stores></SubChain></SubChains></Root>`,
  );
const item = (code: string, name: string, price: string) =>
  `<Item><PriceUpdateDate>2026-11-22 03:00</PriceUpdateDate><ItemCode>${code}</ItemCode><ItemType>1</ItemType><ItemName>${name}</ItemName><ManufacturerName>יצרן</ManufacturerName><ManufactureCountry>IL</ManufactureCountry><ManufacturerItemDescription>${name}</ManufacturerItemDescription><UnitQty>ליטר</UnitQty><Quantity>1</Quantity><bIsWeighted>0</bIsWeighted><UnitOfMeasure>ליטר</UnitOfMeasure><QtyInPackage>1</QtyInPackage><ItemPrice>${price}</ItemPrice><UnitOfMeasurePrice>${price}</UnitOfMeasurePrice><AllowDiscount>1</AllowDiscount><ItemStatus>1</ItemStatus></Item>`;
const priceXml = (code: string, store: string, price: string) =>
  enc.encode(
    `<?xml version="1.0" encoding="utf-8"?><Root><ChainId>${code}</ChainId><SubChainId>1</SubChainId><StoreId>${store}</StoreId><BikoretNo>1</BikoretNo><Items Count="2">` +
      item(SHARED, "חלב 3% 1 ליטר", price) +
      item(gtin(`7290000${code.slice(-5)}`), `מוצר של ${code}`, "9.90") +
      `</Items></Root>`,
  );
const promoXml = (code: string, store: string) =>
  enc.encode(`<?xml version="1.0" encoding="utf-8"?><Root><ChainId>${code}</ChainId><SubChainId>1</SubChainId><StoreId>${store}</StoreId><Promotions Count="0"></Promotions></Root>`);
const gz = (bytes: Uint8Array) => Bun.gzipSync(bytes as Uint8Array<ArrayBuffer>);

/** The day's three files of one store, named as `names` says. */
function chainFiles(code: string, store: string, price: string, names: { stores: string; price: string; promo: string }, wrap: (b: Uint8Array, name: string) => Uint8Array = gz): ChainFiles {
  return {
    code,
    store,
    files: {
      [names.stores]: names.stores.endsWith(".xml") ? storesXml(code, store) : wrap(storesXml(code, store), names.stores),
      [names.price]: wrap(priceXml(code, store, price), names.price),
      [names.promo]: wrap(promoXml(code, store), names.promo),
    },
  };
}

const COFIX_FILE = "PriceFull7291056200008-299-202611220010.gz";
const COFIX_BYTES = gz(priceXml("7291056200008", "299", "6.15"));

const servers: { stop(): void }[] = [];
const serve = (handler: Parameters<typeof startFakePortal>[0]): FakePortal => {
  const portal = startFakePortal(handler);
  servers.push(portal);
  return portal;
};
const nameOf = (path: string, prefix: string) => decodeURIComponent(path.slice(prefix.length));

// --- Cerberus web: GET /login (CSRF meta + cftpSID) → POST /login/user → POST /file/json/dir → GET /file/d/<name>
function cerberusWeb(user: string, c: ChainFiles): FakePortal {
  const sessions = new Set<string>();
  let n = 0;
  return serve((req, url, body) => {
    const sid = (req.headers.get("cookie") ?? "").match(/cftpSID=(\w+)/)?.[1] ?? "";
    const page = (token: string) => `<html><head><meta name="csrftoken" content="${token}"></head><body><input type="password" name="password"></body></html>`;
    if (url.pathname === "/login") return new Response(page(`t-${++n}`), { headers: { "content-type": "text/html", "set-cookie": `cftpSID=s${n}; Path=/` } });
    if (url.pathname === "/login/user") {
      const form = new URLSearchParams(body);
      if (form.get("username") !== user || form.get("csrftoken") !== `t-${sid.slice(1)}`) return new Response(null, { status: 302, headers: { location: "/login" } });
      sessions.add(sid);
      return new Response(null, { status: 302, headers: { location: "/file" } });
    }
    if (!sessions.has(sid)) return htmlResponse(page("again"));
    if (url.pathname === "/file") return htmlResponse(`<html><head><meta name="csrftoken" content="f-${sid}"></head></html>`);
    if (url.pathname === "/file/json/dir") {
      const rows = Object.entries(c.files).map(([fname, b]) => ({ fname, typeLabel: "file", type: "file", size: b.length, ftime: "2026-11-22 05:30:00" }));
      // Super Cofix's prices in Rami Levy's folder (it folded into Rami Levy), and a file under a code no chain has.
      rows.push({ fname: COFIX_FILE, typeLabel: "file", type: "file", size: COFIX_BYTES.length, ftime: "" });
      rows.push({ fname: `PriceFull7290000000999-001-202611220010.gz`, typeLabel: "file", type: "file", size: 10, ftime: "" });
      return jsonResponse({ sEcho: 1, iTotalRecords: rows.length, aaData: rows });
    }
    const name = nameOf(url.pathname, "/file/d/");
    const bytes = name === COFIX_FILE ? COFIX_BYTES : c.files[name];
    return bytes ? bytesResponse(bytes) : htmlResponse("not found", 404);
  });
}

// --- Bina: POST /MainIO_Hok.aspx (WFileType) → [{FileNm…}]; /Download.aspx?FileNm= → [{SPath}] labelled text/html
function bina(c: ChainFiles): FakePortal {
  const type = (name: string) => (/^stores/i.test(name) ? "1" : /^pricefull/i.test(name) ? "4" : /^promofull/i.test(name) ? "5" : "0");
  const portal = serve((_req, url, body) => {
    if (url.pathname === "/MainIO_Hok.aspx") {
      const wanted = new URLSearchParams(body).get("WFileType");
      return jsonResponse(Object.keys(c.files).filter((n) => type(n) === wanted).map((FileNm) => ({ FileNm, Store: c.store, TypeFile: "x", DateFile: "06:00 22/11/2026" })));
    }
    if (url.pathname === "/Download.aspx") return htmlResponse(JSON.stringify([{ SPath: `${portal.url}/blob/${url.searchParams.get("FileNm")}` }]));
    const bytes = c.files[nameOf(url.pathname, "/blob/")];
    return bytes ? bytesResponse(bytes) : htmlResponse("not found", 404);
  });
  return portal;
}

// --- Laib: GET /webapi/api/getfiles?edi= → [{fileName…}] (repeated per branch); GET /webapi/<edi>/<name>
function laib(c: ChainFiles): FakePortal {
  return serve((_req, url) => {
    if (url.pathname === "/webapi/api/getfiles") {
      if (url.searchParams.get("edi") !== c.code) return jsonResponse([]);
      const rows = Object.keys(c.files).map((fileName) => ({ branchNumber: Number(c.store), fileName, fileType: "x", fileDate: "2026-11-22 03:03:00", fileSize: "1.2 KB" }));
      return jsonResponse([...rows, ...rows]);
    }
    if (url.pathname === "/webapi/api/getbranches") return jsonResponse([]);
    const bytes = c.files[nameOf(url.pathname, `/webapi/${c.code}/`)];
    return bytes ? bytesResponse(bytes) : htmlResponse("not found", 404);
  });
}

// --- PublishPrice: `?p=./YYYYMMDD` page embedding `const path` / `const files` in its second-to-last script
function publishPrice(c: ChainFiles): FakePortal {
  return serve((_req, url) => {
    if (url.pathname === "/") {
      const day = (url.searchParams.get("p") ?? "").replace("./", "");
      const files = day === "20261122" ? Object.entries(c.files).map(([name, b]) => ({ name, size: b.length })) : [];
      return htmlResponse(`<html><body><div id="list"></div><script src="/app.js"></script><script>const path = '${day}';\nconst files = ${JSON.stringify(files)};\nrender(path, files);</script><script>ga()</script></body></html>`);
    }
    const bytes = c.files[nameOf(url.pathname, "/20261122/")];
    return bytes ? bytesResponse(bytes) : htmlResponse("not found", 404);
  });
}

// --- Shufersal: `/` sets the cookie (403 without); UpdateCategory grid, link in the first cell, HTML-escaped SAS URL
function shufersal(c: ChainFiles): FakePortal {
  const cat = (name: string) => (/^stores/i.test(name) ? "5" : /^pricefull/i.test(name) ? "2" : /^promofull/i.test(name) ? "4" : "0");
  const portal = serve((req, url) => {
    if (url.pathname === "/") return new Response("<html></html>", { headers: { "content-type": "text/html", "set-cookie": "TS01=1; Path=/" } });
    if (url.pathname === "/FileObject/UpdateCategory") {
      if (!(req.headers.get("cookie") ?? "").includes("TS01=1")) return htmlResponse("Request Rejected", 403);
      const rows = url.searchParams.get("page") !== "1" ? [] : Object.keys(c.files).filter((n) => cat(n) === url.searchParams.get("catID"));
      const tr = rows.map((n) => `<tr><td><a href="${portal.url}/blob/${n}?sv=2014&amp;sr=b&amp;sig=abc&amp;se=x&amp;sp=r">לחץ להורדה</a></td><td>11/22/2026 3:00:00 AM</td><td>1 KB</td><td>gz</td><td>x</td><td>${c.store}</td><td>${n}</td></tr>`);
      return htmlResponse(`<div id="gridContainer"><table><tbody>${tr.join("")}</tbody></table></div>`);
    }
    if (url.searchParams.get("sp") !== "r" || url.searchParams.get("sig") !== "abc") return htmlResponse("AuthenticationFailed", 403);
    const bytes = c.files[nameOf(url.pathname, "/blob/")];
    return bytes ? bytesResponse(bytes) : htmlResponse("not found", 404);
  });
  return portal;
}

// --- Super-Pharm: mvc-grid `?Category-equals=&Date-equals=dd/MM/yyyy&page=`, name in td[2], link in td[6] → JSON {href}
function superPharm(c: ChainFiles): FakePortal {
  const category = (name: string) => (/^stores/i.test(name) ? "Stores" : /^pricefull/i.test(name) ? "PriceFull" : /^promofull/i.test(name) ? "PromoFull" : "");
  return serve((_req, url) => {
    if (url.pathname === "/") {
      const rows = url.searchParams.get("Date-equals") !== "22/11/2026" || url.searchParams.get("page") !== "1" ? [] : Object.keys(c.files).filter((n) => category(n) === url.searchParams.get("Category-equals"));
      const tr = rows.map((n, i) => `<tr><td>${i + 1}</td><td>${n}</td><td>22/11/2026 05:00</td><td>${category(n)}</td><td>${c.store}</td><td><a href="/Download/${n}?bucketName=superpharm">הורדה</a></td></tr>`);
      return htmlResponse(`<div class="mvc-grid" data-total-rows="${rows.length}"><table><tbody>${tr.join("")}</tbody></table></div>`);
    }
    if (url.pathname.startsWith("/Download/")) return jsonResponse({ href: `/files/${url.pathname.slice(10)}` });
    const bytes = c.files[nameOf(url.pathname, "/files/")];
    return bytes ? bytesResponse(bytes) : htmlResponse("not found", 404);
  });
}

// --- Wolt: v1/index.html → v1/<date>.html (<li><a href="download/<date>/<name>">)
function wolt(c: ChainFiles): FakePortal {
  return serve((_req, url) => {
    const base = "/isr-prices/public/v1";
    if (url.pathname === `${base}/index.html`) return htmlResponse(`<ul><li><a href="2026-11-21.html">2026-11-21</a></li><li><a href="2026-11-22.html">2026-11-22</a></li></ul>`);
    if (url.pathname === `${base}/2026-11-22.html`) return htmlResponse(`<ul>${Object.keys(c.files).map((n) => `<li><a href="download/2026-11-22/${n}">${n}</a></li>`).join("")}</ul>`);
    const bytes = c.files[nameOf(url.pathname, `${base}/download/2026-11-22/`)];
    return bytes ? bytesResponse(bytes) : htmlResponse("not found", 404);
  });
}

// --- Hazi Hinam: /Prices?t=&f=&d=&p=, name without extension in td[3], absolute blob link in td[6]
function haziHinam(c: ChainFiles): FakePortal {
  const t = (name: string) => (/^stores/i.test(name) ? "3" : /^price/i.test(name) ? "1" : "2");
  const portal = serve((_req, url) => {
    if (url.pathname === "/Prices") {
      const rows = url.searchParams.get("d") !== DAY || url.searchParams.get("p") !== "1" ? [] : Object.keys(c.files).filter((n) => t(n) === url.searchParams.get("t"));
      const tr = rows.map((n) => `<tr><td>22-11-2026 05:00</td><td>${c.store}</td><td>${n.replace(/\.(xml|gz)$/, "")}</td><td>x</td><td>1.1</td><td><a href="${portal.url}/blob/${n}">הורדה</a></td></tr>`);
      return htmlResponse(`<table><thead><tr><th>תאריך</th></tr></thead><tbody>${tr.join("")}</tbody></table><ul><li class="pagination-item"><a href="?p=1">1</a></li></ul>`);
    }
    const bytes = c.files[nameOf(url.pathname, "/blob/")];
    return bytes ? bytesResponse(bytes) : htmlResponse("not found", 404);
  });
  return portal;
}

// --- City Market shops: /?t=&f=&d=&s=&p=, name in td[3] (no extension), opaque link in td[7]
function cityMarketShops(c: ChainFiles): FakePortal {
  const ids = Object.keys(c.files);
  return serve((_req, url) => {
    if (url.pathname === "/") {
      const rows = url.searchParams.get("d") !== DAY || url.searchParams.get("p") !== "1" ? [] : ids;
      const tr = rows.map((n, i) => `<tr><td>22/11/2026 05:00</td><td>${c.store}</td><td>${n}</td><td>x</td><td>כן</td><td>1.1</td><td><a href="downloadFile?id=${i}">הורדה</a></td></tr>`);
      return htmlResponse(`<table><tbody>${tr.join("")}</tbody></table>`);
    }
    const id = url.searchParams.get("id");
    const bytes = id !== null ? c.files[ids[Number(id)]!] : undefined;
    return bytes ? bytesResponse(bytes) : htmlResponse("not found", 404);
  });
}

// --- Netiv HaHesed: one HTML table, first <a> of each row is the file
function netivHaHesed(c: ChainFiles): FakePortal {
  return serve((_req, url) => {
    if (url.pathname === "/") return htmlResponse(`<table><tr><th>קובץ</th></tr>${Object.keys(c.files).map((n) => `<tr><td><a href="Download/${n}">${n}</a></td><td>2 KB</td></tr>`).join("")}</table>`);
    const bytes = c.files[nameOf(url.pathname, "/Download/")];
    return bytes ? bytesResponse(bytes) : htmlResponse("not found", 404);
  });
}

// --- Meshnat Yosef: the worker answers JSON [{name, url}]
function meshnatYosef(c: ChainFiles): FakePortal {
  const portal = serve((_req, url) => {
    if (url.pathname === "/") return jsonResponse(Object.keys(c.files).map((name) => ({ name, url: `${portal.url}/r2/${name}` })));
    const bytes = c.files[nameOf(url.pathname, "/r2/")];
    return bytes ? bytesResponse(bytes) : htmlResponse("not found", 404);
  });
  return portal;
}

/** chain slug → the shared product's price its portal publishes; filled in beforeAll. */
const EXPECTED_PRICES: Record<string, string> = {};
let dataDir: string;
let db: Databases;
let deps: Services;
let result: FetchAndImportResult;

beforeAll(async () => {
  const day = { legacy: "202611220300", stores: "202611220200" };
  const legacy = (code: string, store: string) => ({ stores: `Stores${code}-${day.stores}.xml`, price: `PriceFull${code}-${store}-${day.legacy}.gz`, promo: `PromoFull${code}-${store}-${day.legacy}.gz` });
  const fivePart = (code: string, store: string) => ({ stores: `Stores${code}-000-20261122-020000.gz`, price: `PriceFull${code}-000-${store}-20261122-030000.gz`, promo: `PromoFull${code}-000-${store}-20261122-030000.gz` });
  const zipped = (b: Uint8Array, name: string) => zipOf(name.replace(/\.gz$/i, ".xml"), b);

  const c = {
    ramiLevy: chainFiles("7290058140886", "1", "6.10", legacy("7290058140886", "001")),
    stopMarket: chainFiles("7290639000004", "2", "6.20", { ...legacy("7290639000004", "002"), stores: `Stores0000072906390-${day.stores}.xml` }),
    kingStore: chainFiles("7290058108879", "28", "6.30", { stores: `StoresFull7290058108879-000-${day.stores}.gz`, price: `PriceFull7290058108879-028-${day.legacy}.gz`, promo: `PromoFull7290058108879-028-${day.legacy}.GZ` }, zipped),
    victory: chainFiles("7290696200003", "1", "6.40", { stores: `StoresFull7290696200003-000-${day.stores}-000.xml`, price: `PriceFull7290696200003-001-${day.legacy}-001.xml.gz`, promo: `PromoFull7290696200003-001-${day.legacy}-001.xml.gz` }),
    carrefour: chainFiles("7290055700007", "2960", "6.50", legacy("7290055700007", "2960")),
    shufersal: chainFiles("7290027600007", "1", "6.60", fivePart("7290027600007", "001")),
    superPharm: chainFiles("7290172900007", "1", "6.70", { stores: `StoresFull7290172900007--${day.stores}.gz`, price: `PriceFull7290172900007-001-${day.legacy}.gz`, promo: `PromoFull7290172900007-001-${day.legacy}.gz` }),
    wolt: chainFiles("7290058249350", "38", "6.80", fivePart("7290058249350", "038")),
    haziHinam: chainFiles("7290700100008", "207", "6.90", fivePart("7290700100008", "207")),
    cityShops: chainFiles("7290000000003", "8", "7.00", { stores: `Stores7290000000003-000-${day.legacy}`, price: `PriceFull7290000000003-008-${day.legacy}`, promo: `PromoFull7290000000003-008-${day.legacy}` }),
    cityKg: chainFiles("7290058266241", "1", "7.00", legacy("7290058266241", "001")),
    netiv: chainFiles("7290058160839", "1", "7.10", legacy("7290058160839", "001")),
    meshnat: chainFiles("5144744100002", "1", "7.20", legacy("5144744100002", "001")),
    ktBina: chainFiles("7290058289400", "3", "7.20", legacy("7290058289400", "003")),
  };
  const ftp = await startFakeFtp({ user: "Stop_Market", password: "", folders: { "/": c.stopMarket.files } });
  servers.push(ftp);
  const override: SourcesOverride = {
    "rami-levy": { base_url: cerberusWeb("RamiLevi", c.ramiLevy).url },
    "stop-market": { base_url: ftp.url, fallback_url: null },
    "king-store": { base_url: bina(c.kingStore).url },
    victory: { base_url: laib(c.victory).url },
    carrefour: { base_url: publishPrice(c.carrefour).url },
    shufersal: { base_url: shufersal(c.shufersal).url },
    "super-pharm": { base_url: superPharm(c.superPharm).url },
    "wolt-market": { base_url: wolt(c.wolt).url + "/isr-prices/public/v1" },
    "hazi-hinam": { base_url: haziHinam(c.haziHinam).url + "/Prices" },
    "city-market": { base_url: cityMarketShops(c.cityShops).url, extra_portals: [{ base_url: bina(c.cityKg).url }] },
    "netiv-hahesed": { base_url: netivHaHesed(c.netiv).url, fallback_url: null },
    "meshnat-yosef": { base_url: meshnatYosef(c.meshnat).url, fallback_url: null, extra_portals: [{ base_url: bina(c.ktBina).url }] },
  };
  Object.assign(EXPECTED_PRICES, {
    "rami-levy": "6.10",
    "stop-market": "6.20",
    "king-store": "6.30",
    victory: "6.40",
    carrefour: "6.50",
    shufersal: "6.60",
    "super-pharm": "6.70",
    "wolt-market": "6.80",
    "hazi-hinam": "6.90",
    "city-market": "7.00",
    "netiv-hahesed": "7.10",
    "meshnat-yosef": "7.20",
  });

  dataDir = tempDir();
  db = openDataDir(dataDir);
  syncRegistry(db.prices, registry);
  result = await fetchAndImport({ db: db.prices, registry, dataDir, importPriority: "normal", chains: Object.keys(override), date: DAY, sourcesOverride: override, http: FAST_HTTP, now: () => NOW, log: () => {} });
  deps = createServices(loadSettings({}), db, { registry, data: new DataState(db.prices), now: () => NOW });
}, 60_000);

afterAll(() => {
  for (const s of servers) s.stop();
  deps?.search.stop();
  db?.prices.close();
  db?.accounts.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("every portal family, listing → download → import → API", () => {
  test("the registry's family of each chain fetched all three files of the day, nothing else", () => {
    const families = Object.fromEntries(result.fetch.chains.map((r) => [r.slug, r.portals.map((p) => p.family).join("+")]));
    expect(families).toEqual({
      "rami-levy": "cerberus",
      "stop-market": "cerberus",
      "king-store": "bina",
      victory: "laib",
      carrefour: "publishprice",
      shufersal: "shufersal",
      "super-pharm": "superpharm",
      "wolt-market": "wolt",
      "hazi-hinam": "hazihinam",
      "city-market": "citymarket+bina",
      "netiv-hahesed": "netivhahesed",
      "meshnat-yosef": "meshnatyosef+bina",
    });
    for (const r of result.fetch.chains) {
      expect({ slug: r.slug, status: r.status, errors: r.errors }).toEqual({ slug: r.slug, status: "ok", errors: [] });
      expect(r.downloaded.length).toBe(r.slug === "city-market" || r.slug === "meshnat-yosef" ? 6 : r.slug === "rami-levy" ? 4 : 3);
    }
    const ramiLevy = result.fetch.chains.find((r) => r.slug === "rami-levy")!;
    expect(ramiLevy.dropped).toEqual({ "unknown chain code": 1 });
    expect(ramiLevy.unknownCodes).toEqual(["7290000000999"]);
    expect(ramiLevy.adopted).toEqual({ "super-cofix": 1 });
    expect(ramiLevy.downloaded.find((d) => d.fileName === COFIX_FILE)!.chainSlug).toBe("super-cofix");
  });

  test("the import loaded every downloaded file as live data", () => {
    expect(result.import).toMatchObject({ origin: "fetch", source: "live", status: "ok" });
    const bad = result.import!.files.filter((f) => f.status !== "ok" || (f.type === "pricefull" && f.rows !== 2));
    expect(bad.map((f) => `${f.fileName}: ${f.status} ${f.rows} ${f.reason ?? ""}`)).toEqual([]);
    expect(result.import!.totals.files).toBe(43); // ten chains × 3 files, two chains with a second portal × 6, Super Cofix's file on Rami Levy's portal
  });

  test("GET /api/v1/chains/ shows each fetched chain with live data and a truthful fetch health", async () => {
    const app = createApp(deps);
    const headers = newKey(deps, "pro", "live").headers;
    const chains = (await (await app.handle(new Request("http://localhost/api/v1/chains/", { headers }))).json()).data as Record<string, unknown>[];
    for (const slug of Object.keys(EXPECTED_PRICES)) {
      const chain = chains.find((c) => c.chain_id === slug)!;
      expect({ slug, status: chain.status, source: chain.source, error: chain.last_fetch_error, fetched: chain.last_fetch_success_at !== null }).toEqual({ slug, status: "ok", source: "live", error: null, fetched: true });
      expect(chain.store_count as number).toBeGreaterThanOrEqual(1);
      expect(chain.product_count as number).toBeGreaterThanOrEqual(2);
    }
    // Super Cofix folded into Rami Levy: not fetched itself, its file on Rami Levy's portal imported as its own.
    const cofix = chains.find((c) => c.chain_id === "super-cofix")!;
    expect(cofix).toMatchObject({ active: false, merged_into: "rami-levy", inactive_since: "2026-02-16", source: "live", status: "ok", status_reason: null });
    expect(cofix.product_count as number).toBe(2);
  });

  test("GET /api/v1/prices/ lists the shared product at every chain, at the price its portal published", async () => {
    const app = createApp(deps);
    const headers = newKey(deps, "pro", "live").headers;
    const body = await (await app.handle(new Request(`http://localhost/api/v1/prices/?barcode=${SHARED}`, { headers }))).json();
    const prices = Object.fromEntries((body.data.prices as { chain_id: string; price_ils: string }[]).map((p) => [p.chain_id, p.price_ils]));
    expect(prices).toEqual({ ...EXPECTED_PRICES, "super-cofix": "6.15" });
  });
});
