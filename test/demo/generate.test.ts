import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateDemo, type DemoReport } from "../../src/demo/generate.ts";
import { isValidGtin } from "../../src/demo/gtin.ts";
import { loadRegistry } from "../../src/registry.ts";
import { loadSeed, seedStoreCount } from "../../src/demo/seed.ts";

// A small demo (3% of each assortment) of every chain, and a second run of a few chains.
const NOW = new Date("2026-11-22T08:00:00Z");
const registry = loadRegistry();
let root: string;
let full: DemoReport;
const dirOf = (...parts: string[]) => join(root, "a", ...parts);
const filesOf = (slug: string) => readdirSync(dirOf(slug)).sort();
const bytesOf = (slug: string, name: string) => new Uint8Array(readFileSync(dirOf(slug, name)));

/** The XML text inside a demo file (gzip, zip or plain), decoded as UTF-8. */
function xmlOf(slug: string, name: string): string {
  return new TextDecoder().decode(unpack(bytesOf(slug, name)));
}

function unpack(data: Uint8Array<ArrayBuffer>): Uint8Array {
  if (data[0] === 0x1f && data[1] === 0x8b) return Bun.gunzipSync(data);
  if (data[0] === 0x50 && data[1] === 0x4b) {
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const size = view.getUint32(18, true);
    const nameLength = view.getUint16(26, true);
    const start = 30 + nameLength + view.getUint16(28, true);
    const out = Bun.inflateSync(data.slice(start, start + size));
    expect(Bun.hash.crc32(out) >>> 0).toBe(view.getUint32(14, true));
    return out;
  }
  return data;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "mehir-demo-"));
  full = await generateDemo({ registry, outDir: join(root, "a"), seed: 7, now: NOW, scale: 0.03 });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("generateDemo", () => {
  test("is deterministic: same seed and now give the same bytes, a chain alone the same as within all", async () => {
    const chains = ["shufersal", "rami-levy", "victory", "maayan-2000", "super-pharm", "wolt-market", "politzer", "tiv-taam"];
    // Run "a" shared the chains with a worker thread; this one writes them all on this thread.
    await generateDemo({ registry, outDir: join(root, "b"), seed: 7, now: NOW, scale: 0.03, chains, parallel: false });
    for (const slug of chains) {
      const names = readdirSync(join(root, "b", slug)).sort();
      expect(names).toEqual(filesOf(slug));
      for (const name of names) {
        const again = new Uint8Array(readFileSync(join(root, "b", slug, name)));
        expect(Buffer.from(again).equals(Buffer.from(bytesOf(slug, name)))).toBe(true);
      }
    }
  });

  test("another seed gives other data", async () => {
    await generateDemo({ registry, outDir: join(root, "c"), seed: 8, now: NOW, scale: 0.03, chains: ["rami-levy"] });
    const name = filesOf("rami-levy").find((n) => n.startsWith("PriceFull"))!;
    const other = readdirSync(join(root, "c", "rami-levy")).find((n) => n.startsWith("PriceFull"))!;
    const a = xmlOf("rami-levy", name);
    const b = new TextDecoder().decode(unpack(new Uint8Array(readFileSync(join(root, "c", "rami-levy", other)))));
    expect(a).not.toBe(b);
  });

  test("every active chain of the registry has stores, price and promo files for every store", () => {
    // Active chains and merged ones (their files still come, through the chain they folded into).
    const active = registry.chains.filter((c) => c.active || !!c.inactive?.merged_into);
    expect(full.chains).toBe(active.length);
    for (const chain of active) {
      const names = filesOf(chain.slug);
      expect(names.some((n) => /^Stores(Full)?\d/.test(n))).toBe(true);
      const stores = full.perChain[chain.slug]!.stores;
      expect(stores).toBeGreaterThanOrEqual(2);
      expect(stores).toBeLessThanOrEqual(6);
      // Two PriceFull and two PromoFull per store, plus 23 monthly Price deltas.
      expect(names.filter((n) => n.startsWith("PriceFull")).length).toBe(2 * stores);
      expect(names.filter((n) => n.startsWith("PromoFull")).length).toBe(2 * stores);
      expect(names.filter((n) => /^(NULL)?Price\d/.test(n)).length).toBe(23 * stores);
    }
    expect(full.stores).toBeGreaterThanOrEqual(100);
  });

  test("files span 24 months up to now", () => {
    expect(full.from < "2024-11-22").toBe(true);
    expect(full.to.startsWith("2026-11-22")).toBe(true);
    expect(new Date(full.to).getTime()).toBeLessThan(NOW.getTime());
  });

  test("gzip headers carry the file's time", () => {
    const name = filesOf("rami-levy").find((n) => n.startsWith("PriceFull7290058140886-001-2026"))!;
    const data = bytesOf("rami-levy", name);
    const mtime = new DataView(data.buffer, data.byteOffset).getUint32(4, true);
    const stamp = name.match(/-(\d{12})\.gz$/)![1]!;
    const local = new Date(mtime * 1000).toLocaleString("sv-SE", { timeZone: "Asia/Jerusalem" }).replace(/\D/g, "").slice(0, 12);
    expect(local).toBe(stamp);
  });
});

describe("real quirks", () => {
  test("Cerberus: UTF-8 BOM, XmlDocVersion, CRLF, Items Count", () => {
    const name = filesOf("rami-levy").find((n) => n.startsWith("PriceFull"))!;
    const raw = unpack(bytesOf("rami-levy", name));
    expect([...raw.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const xml = new TextDecoder().decode(raw);
    expect(xml).toContain("<XmlDocVersion>19</XmlDocVersion>");
    expect(xml).toContain("\r\n");
    expect(xml).toMatch(/<Items Count="\d+">/);
    expect(xml).toContain("<ItemNm>"); // Rami Levy since 2025
  });

  test("a UTF-16LE stores file (Tiv Taam)", () => {
    const name = filesOf("tiv-taam").find((n) => n.startsWith("Stores"))!;
    const data = bytesOf("tiv-taam", name);
    expect([data[0], data[1]]).toEqual([0xff, 0xfe]);
    const text = new TextDecoder("utf-16le").decode(data.subarray(2));
    expect(text).toContain('encoding="utf-16"');
    expect(text).toContain("<StoreName>טיב טעם בר כוכבא</StoreName>");
  });

  test("windows-1255 files (Politzer) that are not UTF-8", () => {
    const name = filesOf("politzer").find((n) => n.startsWith("PriceFull"))!;
    const raw = unpack(bytesOf("politzer", name));
    expect(() => new TextDecoder("utf-8", { fatal: true }).decode(raw)).toThrow();
    const text = new TextDecoder("windows-1255").decode(raw);
    expect(text.startsWith('<?xml version="1.0" encoding="windows-1255"?>')).toBe(true);
    expect(text).toMatch(/<ItemName>[\u05d0-\u05ea]/);
  });

  test("Bina: a ZIP archive under a .gz name, ItemNm, no BOM", () => {
    const name = filesOf("king-store").find((n) => n.startsWith("PriceFull"))!;
    expect(name.endsWith(".gz")).toBe(true);
    const data = bytesOf("king-store", name);
    expect([...data.subarray(0, 4)]).toEqual([0x50, 0x4b, 0x03, 0x04]);
    const xml = xmlOf("king-store", name);
    expect(xml.startsWith("<Root>")).toBe(true);
    expect(xml).toContain("<ItemNm>");
    expect(filesOf("zol-vebegadol").some((n) => n.endsWith(".GZ"))).toBe(true);
  });

  test("NULL placeholders: King Store's NULLPrice deltas hold rows, Hazi Hinam's NULLPromo is empty", () => {
    const nullPrices = filesOf("king-store").filter((n) => n.startsWith("NULLPrice"));
    expect(nullPrices.length).toBeGreaterThan(0);
    expect(nullPrices.some((n) => xmlOf("king-store", n).includes("<Item>"))).toBe(true);
    const nullPromo = filesOf("hazi-hinam").find((n) => /^NULLPromo7290700100008-\d{3}-\d{12}\.xml$/.test(n))!;
    expect(xmlOf("hazi-hinam", nullPromo)).toContain('<Promotions Count="0"/>');
  });

  test("Matrix/Laib names with -000/-001 sequence parts and Prices/Products, Sales/Sale", () => {
    const names = filesOf("victory");
    const stores = names.find((n) => /^StoresFull7290696200003-000-\d{12}-000\.xml$/.test(n))!;
    expect(stores).toBeDefined();
    expect(xmlOf("victory", stores)).toContain("<ChainID>7290058103393</ChainID>"); // two chain codes in one file
    const price = names.find((n) => /^PriceFull7290696200003-\d{3}-\d{12}-001\.xml\.gz$/.test(n))!;
    expect(xmlOf("victory", price)).toContain("<Products>");
    const promo = names.find((n) => n.startsWith("PromoFull"))!;
    expect(xmlOf("victory", promo)).toContain("<Sales>");
  });

  test("five-part 2025-26 names and the new dialect (Shufersal, Wolt)", () => {
    const names = filesOf("shufersal");
    const price = names.find((n) => /^PriceFull7290027600007-\d{3}-\d{3}-\d{8}-\d{6}\.gz$/.test(n))!;
    const xml = xmlOf("shufersal", price);
    expect(xml).toContain("<ChainID>7290027600007</ChainID>");
    expect(xml).toMatch(/<PriceUpdateTime>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d<\/PriceUpdateTime>/);
    const stores = xmlOf("shufersal", names.find((n) => n.startsWith("Stores"))!);
    expect(stores.startsWith("<Chain>")).toBe(true);
    expect(stores).toContain("<City>2600</City>"); // Eilat as a CBS code
    const promo = xmlOf("shufersal", names.find((n) => n.startsWith("PromoFull"))!);
    expect(promo).toContain("<Groups>");
    expect(filesOf("wolt-market").some((n) => /^PromoFull7290058249350-000-\d{3}-\d{8}-\d{6}$/.test(n))).toBe(true);
  });

  test("Super-Pharm: OrderXml declared ISO-8859-8, bytes UTF-8, empty store segment in the stores name", () => {
    const names = filesOf("super-pharm");
    const stores = names.find((n) => /^StoresFull7290172900007--\d{12}$/.test(n))!;
    const xml = xmlOf("super-pharm", stores);
    expect(xml.startsWith('<?xml version="1.0" encoding="ISO-8859-8" standalone="no" ?>')).toBe(true);
    expect(() => new TextDecoder("utf-8", { fatal: true }).decode(bytesOf("super-pharm", stores))).not.toThrow();
    expect(xml).toContain("<OrderXml");
    expect(xmlOf("super-pharm", names.find((n) => n.startsWith("PriceFull"))!)).toContain("<blsWeighted>");
  });

  test("Stop Market's stores file uses the truncated id 0000072906390", () => {
    const name = filesOf("stop-market").find((n) => n.startsWith("Stores"))!;
    expect(name).toMatch(/^Stores0000072906390-\d{12}\.xml$/);
    expect(xmlOf("stop-market", name)).toContain("<ChainId>72906390</ChainId>");
  });

  test("Dor Alon's carriage return inside an address, as &#x0D;", () => {
    const name = filesOf("dor-alon").find((n) => n.startsWith("Stores"))!;
    expect(xmlOf("dor-alon", name)).toContain("אבן גבירול 30&#x0D;");
  });

  test("barcoded items carry valid GTIN-13s; produce has short internal codes and is weighed", () => {
    for (const slug of ["shufersal", "rami-levy", "victory"]) {
      const name = filesOf(slug).find((n) => n.startsWith("PriceFull"))!;
      const xml = xmlOf(slug, name);
      const rows = [...xml.matchAll(/<ItemCode>(\d+)<\/ItemCode>\s*(?:<LastSaleDateTime>[^<]*<\/LastSaleDateTime>\s*)?<ItemType>([01])<\/ItemType>/g)];
      expect(rows.length).toBeGreaterThan(10);
      for (const [, code, type] of rows) {
        if (type === "1") expect(isValidGtin(code!)).toBe(true);
        else expect(code!.length).toBeLessThanOrEqual(6);
      }
      expect(rows.some(([, , type]) => type === "0")).toBe(true);
      expect(/<[bB][iI]sWeighted>1</.test(xml)).toBe(true);
    }
  });

  test("an empty delta (Carrefour) and an empty PromoFull (Wolt) are published as such", () => {
    expect(filesOf("carrefour").some((n) => n.startsWith("Price7") && xmlOf("carrefour", n).includes('<Items Count="0"/>'))).toBe(true);
    expect(filesOf("wolt-market").some((n) => n.startsWith("PromoFull") && xmlOf("wolt-market", n).includes("<Promotions/>"))).toBe(true);
  });
});

test("the store counts a server's thread reads to share the chains between workers are the validated seed's", () => {
  const seed = loadSeed();
  for (const chain of loadRegistry().chains) expect(seedStoreCount(chain.slug)).toBe(seed.stores[chain.slug]?.length);
  expect(Object.keys(seed.stores).length).toBeGreaterThan(10);
});
