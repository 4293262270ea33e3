import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { baseName, parseListingName } from "../../../src/ingest/sources/file-name.ts";
import { loadRegistry } from "../../../src/registry.ts";
import { REAL_SAMPLES, realSamplesFor } from "../../helpers/real-samples.ts";

const REAL = REAL_SAMPLES;
const present = realSamplesFor("sample file names");

describe("parseListingName", () => {
  test("legacy 3-part name", () => {
    expect(parseListingName("PriceFull7290027600007-001-202401010300.gz")).toEqual({
      type: "pricefull", chainCode: "7290027600007", subChainCode: null, storeCode: "1", time: "2024-01-01T03:00:00+02:00", isNullPlaceholder: false,
    });
  });

  test("new 5-part name with sub-chain and seconds (summer time)", () => {
    const n = parseListingName("PromoFull7290058249350-000-038-20260217-000027");
    expect(n).toMatchObject({ type: "promofull", subChainCode: "0", storeCode: "38", time: "2026-02-17T00:00:27+02:00" });
    expect(parseListingName("PriceFull7290027600007-001-001-20260824-030000.gz").time).toBe("2026-08-24T03:00:00+03:00");
  });

  test("Matrix sequence suffix, 4-digit stores, uppercase .GZ", () => {
    expect(parseListingName("StoresFull7290696200003-000-202211020600-000.xml")).toMatchObject({ type: "stores", storeCode: null, time: "2022-11-02T06:00:00+02:00" });
    expect(parseListingName("PriceFull7290696200003-001-202211020303-001.xml")).toMatchObject({ type: "pricefull", storeCode: "1" });
    expect(parseListingName("Price7290725900003-9032-202410021600.GZ")).toMatchObject({ type: "price", storeCode: "9032" });
  });

  test("chain-wide Stores names, empty store segment, Stop Market's odd code", () => {
    expect(parseListingName("Stores7290058140886-202211012005.xml")).toMatchObject({ type: "stores", chainCode: "7290058140886", storeCode: null });
    expect(parseListingName("StoresFull7290172900007--202211020200")).toMatchObject({ type: "stores", storeCode: null, time: "2022-11-02T02:00:00+02:00" });
    expect(parseListingName("Stores0000072906390-202211021530.xml").chainCode).toBe("72906390");
  });

  test("NULL placeholders, lowercase prefixes, 2015 PricesFull", () => {
    expect(parseListingName("NULLPromo7290700100008-001-202411021400.xml")).toMatchObject({ type: "promo", isNullPlaceholder: true, storeCode: "1" });
    expect(parseListingName("pricefull7290058140886-039-202503270156.gz").type).toBe("pricefull");
    expect(parseListingName("PricesFull7290803800003-001-201506030100.xml").type).toBe("pricefull");
  });

  test("names that are not price files", () => {
    expect(parseListingName("readme.txt").type).toBeNull();
    expect(parseListingName("Price-abc").chainCode).toBeNull();
    expect(parseListingName("PriceFull7290027600007-001-209913999999").time).toBeNull();
  });

  test("baseName strips folders and stacked extensions", () => {
    expect(baseName("Yuda/PriceFull1-1-202611220500.xml.gz")).toBe("PriceFull1-1-202611220500");
  });
});

describe("real published file names", () => {
  test.skipIf(!present)("every sample name has a type, a time and a chain of the registry", () => {
    const registry = loadRegistry();
    const names = readdirSync(REAL).filter((n) => /^(NULL)?(Price|Promo|Stores)/i.test(n));
    expect(names.length).toBeGreaterThanOrEqual(14);
    for (const name of names) {
      const parsed = parseListingName(name);
      expect({ name, type: parsed.type !== null, time: parsed.time !== null }).toEqual({ name, type: true, time: true });
      expect({ name, chain: registry.byCode.get(parsed.chainCode!)?.slug ?? null }).not.toEqual({ name, chain: null });
    }
  });
});
