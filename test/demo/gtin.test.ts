import { describe, expect, test } from "bun:test";
import { gtin13, gtinCheckDigit, isValidGtin } from "../../src/demo/gtin.ts";
import { buildCatalog } from "../../src/demo/catalog.ts";
import { Random } from "../../src/demo/random.ts";
import { loadSeed } from "../../src/demo/seed.ts";

describe("GTIN check digits", () => {
  test("match published barcodes", () => {
    // Barcodes printed on real packs / GS1 examples.
    expect(gtinCheckDigit("400638133393")).toBe(1); // 4006381333931
    expect(gtinCheckDigit("7351353")).toBe(7); // EAN-8 73513537
    expect(isValidGtin("4006381333931")).toBe(true);
    expect(isValidGtin("4006381333932")).toBe(false);
    expect(isValidGtin("73513537")).toBe(true);
    expect(isValidGtin("12345")).toBe(false);
  });

  test("gtin13 builds 729-prefixed codes with a valid check digit", () => {
    const code = gtin13(1, 42);
    expect(code).toMatch(/^729000100042\d$/);
    expect(isValidGtin(code)).toBe(true);
    expect(() => gtin13(10000, 1)).toThrow();
  });
});

describe("demo catalogue", () => {
  const catalog = buildCatalog(loadSeed().products, new Random("test").fork("catalog"));

  test("has 3,000–5,000 products with unique, valid, Israeli GTIN-13s", () => {
    expect(catalog.products.length).toBeGreaterThanOrEqual(3000);
    expect(catalog.products.length).toBeLessThanOrEqual(5000);
    const codes = new Set(catalog.products.map((p) => p.barcode));
    expect(codes.size).toBe(catalog.products.length);
    for (const p of catalog.products) {
      expect(p.barcode).toMatch(/^729\d{10}$/);
      expect(isValidGtin(p.barcode)).toBe(true);
    }
  });

  test("names read like shelf labels", () => {
    const names = new Set(catalog.products.map((p) => p.name));
    for (const expected of ["חלב תנובה 3% 1 ליטר", "קוטג' תנובה 5% 250 גרם", "במבה אסם 80 גרם", "קוקה קולה 1.5 ליטר"]) {
      expect(names.has(expected)).toBe(true);
    }
    for (const p of catalog.products) expect(p.name).not.toMatch(/\s{2}|^\s|\s$/);
  });

  test("prices follow the seed ranges and larger packs cost more", () => {
    const milk1 = catalog.products.find((p) => p.name === "חלב תנובה 3% 1 ליטר")!;
    const milk2 = catalog.products.find((p) => p.name === "חלב תנובה 3% 2 ליטר")!;
    expect(milk1.basePrice).toBeGreaterThanOrEqual(590);
    expect(milk1.basePrice).toBeLessThanOrEqual(790);
    expect(milk2.basePrice).toBeGreaterThan(milk1.basePrice);
  });

  test("private labels belong to one chain and carry its name", () => {
    const shufersal = catalog.privateLabels.get("shufersal")!;
    expect(shufersal.length).toBeGreaterThan(20);
    for (const p of shufersal) {
      expect(p.privateLabelOf).toBe("shufersal");
      expect(p.name).toContain("שופרסל");
    }
  });
});
