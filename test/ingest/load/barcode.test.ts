import { describe, expect, test } from "bun:test";
import { barcodeKey, isRestrictedCirculation, isValidGtin, productIdentity } from "../../../src/ingest/load/barcode.ts";

describe("barcodeKey", () => {
  test("drops leading zeros, keeps a lone zero", () => {
    expect(barcodeKey("007290000066318")).toBe("7290000066318");
    expect(barcodeKey("7290000066318")).toBe("7290000066318");
    expect(barcodeKey("0000")).toBe("0");
    expect(barcodeKey(" 0042 ")).toBe("42");
  });
});

describe("isValidGtin", () => {
  test("accepts GTIN-8/12/13/14 with a correct check digit, zero-padded or not", () => {
    expect(isValidGtin("7290000066318")).toBe(true); // GTIN-13
    expect(isValidGtin("00007290000066318")).toBe(true);
    expect(isValidGtin("96385074")).toBe(true); // GTIN-8
    expect(isValidGtin("036000291452")).toBe(true); // UPC-A, stored without its zero as 11 digits
    expect(isValidGtin("10012345678902")).toBe(true); // GTIN-14
  });
  test("rejects a wrong check digit, short codes and non-digits", () => {
    expect(isValidGtin("7290000066311")).toBe(false);
    expect(isValidGtin("1234")).toBe(false);
    expect(isValidGtin("0000001234")).toBe(false);
    expect(isValidGtin("72900000663A8")).toBe(false);
    expect(isValidGtin("729000006631812")).toBe(false); // 15 digits
  });
});

describe("productIdentity", () => {
  test("a valid GTIN is shared by every chain, leading zeros ignored", () => {
    expect(productIdentity("7290000066318", 1, 5)).toEqual({ scope: 0, key: "7290000066318" });
    expect(productIdentity("0007290000066318", null, 9)).toEqual({ scope: 0, key: "7290000066318" });
  });
  test("ItemType 0, a bad check digit, a short code or an in-store number stays with its chain", () => {
    expect(productIdentity("7290000066318", 0, 5)).toEqual({ scope: 5, key: "7290000066318" });
    expect(productIdentity("7290000066311", 1, 5)).toEqual({ scope: 5, key: "7290000066311" });
    expect(productIdentity("0004021", 1, 5)).toEqual({ scope: 5, key: "4021" });
    expect(isRestrictedCirculation("2000123000008")).toBe(true);
    expect(isValidGtin("2000123000008")).toBe(true);
    expect(productIdentity("2000123000008", 1, 5)).toEqual({ scope: 5, key: "2000123000008" });
  });
});
