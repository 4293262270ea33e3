import { describe, expect, test } from "bun:test";
import { parseFileName } from "../../../src/ingest/files/name.ts";

describe("parseFileName", () => {
  test.each([
    // 3-part legacy Cerberus / Shufersal / Bina, winter time
    ["PriceFull7290027600007-001-202401010300.gz", { type: "pricefull", chainCode: "7290027600007", subChainCode: null, storeCode: "1", time: "2024-01-01T03:00:00+02:00", isNullPlaceholder: false }],
    // 4-digit store, no extension, summer time
    ["Price7290725900003-9032-202410021600", { type: "price", chainCode: "7290725900003", subChainCode: null, storeCode: "9032", time: "2024-10-02T16:00:00+03:00", isNullPlaceholder: false }],
    // Matrix `-seq` suffix
    ["PriceFull7290696200003-001-202211020303-001.xml", { type: "pricefull", chainCode: "7290696200003", subChainCode: null, storeCode: "1", time: "2022-11-02T03:03:00+02:00", isNullPlaceholder: false }],
    ["StoresFull7290661400001-000-202211020600-000.xml", { type: "stores", chainCode: "7290661400001", subChainCode: null, storeCode: null, time: "2022-11-02T06:00:00+02:00", isNullPlaceholder: false }],
    // 5-part new layout
    ["PriceFull7290027600007-001-001-20260824-030000.gz", { type: "pricefull", chainCode: "7290027600007", subChainCode: "1", storeCode: "1", time: "2026-08-24T03:00:00+03:00", isNullPlaceholder: false }],
    ["PromoFull7290058249350-000-038-20260217-000027", { type: "promofull", chainCode: "7290058249350", subChainCode: "0", storeCode: "38", time: "2026-02-17T00:00:27+02:00", isNullPlaceholder: false }],
    ["Promo7290700100008-000-207-20250224-103225.xml.gz", { type: "promo", chainCode: "7290700100008", subChainCode: "0", storeCode: "207", time: "2025-02-24T10:32:25+02:00", isNullPlaceholder: false }],
    // chain-wide Stores without store segment, with `--` and with `-000-`
    ["Stores7290058140886-202211012005.xml", { type: "stores", chainCode: "7290058140886", subChainCode: null, storeCode: null, time: "2022-11-01T20:05:00+02:00", isNullPlaceholder: false }],
    ["StoresFull7290172900007--202211020200", { type: "stores", chainCode: "7290172900007", subChainCode: null, storeCode: null, time: "2022-11-02T02:00:00+02:00", isNullPlaceholder: false }],
    ["Stores7290027600007-000-202211020201", { type: "stores", chainCode: "7290027600007", subChainCode: null, storeCode: null, time: "2022-11-02T02:01:00+02:00", isNullPlaceholder: false }],
    // zero-padded / truncated chain id
    ["Stores0000072906390-202211021530.xml", { type: "stores", chainCode: "72906390", subChainCode: null, storeCode: null, time: "2022-11-02T15:30:00+02:00", isNullPlaceholder: false }],
    // NULL placeholder prefix
    ["NULLPrice7290058108879-028-202410261441.xml", { type: "price", chainCode: "7290058108879", subChainCode: null, storeCode: "28", time: "2024-10-26T14:41:00+03:00", isNullPlaceholder: true }],
    ["NULLPromo7290700100008-001-202411021400.xml", { type: "promo", chainCode: "7290700100008", subChainCode: null, storeCode: "1", time: "2024-11-02T14:00:00+02:00", isNullPlaceholder: true }],
    // case, 2015 `PricesFull`, zip-named `.GZ`, 14-digit stamp
    ["pricefull7290058140886-039-202503270156.xml", { type: "pricefull", chainCode: "7290058140886", subChainCode: null, storeCode: "39", time: "2025-03-27T01:56:00+02:00", isNullPlaceholder: false }],
    ["PRICEFULL7290058140886-039-202503280256.XML", { type: "pricefull", chainCode: "7290058140886", subChainCode: null, storeCode: "39", time: "2025-03-28T03:56:00+03:00", isNullPlaceholder: false }],
    ["PricesFull7290103152017-010-201506030830.xml", { type: "pricefull", chainCode: "7290103152017", subChainCode: null, storeCode: "10", time: "2015-06-03T08:30:00+03:00", isNullPlaceholder: false }],
    ["promofull7290058159628-001-202211021214.GZ", { type: "promofull", chainCode: "7290058159628", subChainCode: null, storeCode: "1", time: "2022-11-02T12:14:00+02:00", isNullPlaceholder: false }],
    ["PriceFull7290058159628-0037-20221102121405.zip", { type: "pricefull", chainCode: "7290058159628", subChainCode: null, storeCode: "37", time: "2022-11-02T12:14:05+02:00", isNullPlaceholder: false }],
    // a dash after the type (Victory 2016, Mahsanei HaShuk 2015 Stores)
    ["PriceFull-7290696200003-097-201608280606-001.xml", { type: "pricefull", chainCode: "7290696200003", subChainCode: null, storeCode: "97", time: "2016-08-28T06:06:00+03:00", isNullPlaceholder: false }],
    ["StoresFull-7290661400001-000-201507060600-000.xml", { type: "stores", chainCode: "7290661400001", subChainCode: null, storeCode: null, time: "2015-07-06T06:00:00+03:00", isNullPlaceholder: false }],
    ["Promo-7290696200003-097-201608281100-001.xml.gz", { type: "promo", chainCode: "7290696200003", subChainCode: null, storeCode: "97", time: "2016-08-28T11:00:00+03:00", isNullPlaceholder: false }],
    // underscores for dashes
    ["PriceFull7290873255550_004_202410011200.xml", { type: "pricefull", chainCode: "7290873255550", subChainCode: null, storeCode: "4", time: "2024-10-01T12:00:00+03:00", isNullPlaceholder: false }],
    // path prefixes are ignored
    ["/data/in/PromoFull7290103152017-010-201506030830.xml", { type: "promofull", chainCode: "7290103152017", subChainCode: null, storeCode: "10", time: "2015-06-03T08:30:00+03:00", isNullPlaceholder: false }],
  ] as const)("%s", (name, expected) => {
    expect(parseFileName(name)).toEqual(expected);
  });

  test("a DST switch hour in the name", () => {
    // 2026-10-25 01:30 happens twice (autumn switch); 2026-03-27 02:30 does not exist.
    expect(parseFileName("PriceFull7290027600007-001-202610250130")?.time).toBe("2026-10-25T01:30:00+02:00");
    expect(parseFileName("PriceFull7290027600007-001-202603270230")?.time).toBe("2026-03-27T03:30:00+03:00");
  });

  test("an impossible timestamp gives a null time, not a wrong one", () => {
    expect(parseFileName("PriceFull7290027600007-001-202613450300")?.time).toBeNull();
    expect(parseFileName("PriceFull7290027600007-001")).toMatchObject({ storeCode: "1", time: null });
  });

  test("names that are not price-transparency files", () => {
    expect(parseFileName("readme.txt")).toBeNull();
    expect(parseFileName("Prices-list.xml")).toBeNull();
    expect(parseFileName("PriceFullABC-001-202401010300.gz")).toBeNull();
    expect(parseFileName("")).toBeNull();
  });
});
