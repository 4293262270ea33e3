import { describe, expect, test } from "bun:test";
import { israelLocalIso, parseIsraelDateTime } from "../../../src/ingest/dialects/dates.ts";
import { israelLocalToDate, toIsraelIso } from "../../../src/lib/time.ts";
import { discountRate } from "../../../src/ingest/dialects/discount-rate.ts";
import { toAgorot } from "../../../src/ingest/dialects/money.ts";
import { cleanText, isPlaceholder, stripCode, toFlag, toPositive } from "../../../src/ingest/dialects/values.ts";

describe("toAgorot", () => {
  test.each([
    ["5.90", 590],
    ["3.6", 360],
    ["65", 6500],
    ["0.0295", 3],
    ["0.0249", 2],
    ["1.005", 101],
    ["12,90", 1290],
    [" 7.10 ", 710],
    [".5", 50],
    ["-2.50", -250],
    ["29.99", 2999],
  ])("%s → %d", (text, agorot) => expect(toAgorot(text)).toBe(agorot));

  test.each(["", "  ", "abc", "1.2.3", "5 ש\"ח", null, undefined, "-", "."])("%p → null", (text) => {
    expect(toAgorot(text)).toBeNull();
  });
});

describe("placeholders and small values", () => {
  test.each(["", "לא ידוע", "unknown", "UNKNOWN", "00000", "0000000", "0000000000000", "{}", "null"])("%p is a placeholder", (text) => {
    expect(isPlaceholder(text)).toBe(true);
  });
  test.each(["0", "000", "תל אביב", "1", "unknownx", "10000"])("%p is a value", (text) => expect(isPlaceholder(text)).toBe(false));

  test("cleanText trims, collapses whitespace and nulls placeholders", () => {
    expect(cleanText("  צומת גולני\r\n  כביש 65 ")).toBe("צומת גולני כביש 65");
    expect(cleanText(" לא ידוע ")).toBeNull();
    expect(cleanText({ "@a": "1", "#text": " x " })).toBe("x");
    expect(cleanText(undefined)).toBeNull();
  });

  test("codes lose leading zeros; flags and positive numbers", () => {
    expect(stripCode("038")).toBe("38");
    expect(stripCode("000")).toBe("0");
    expect(stripCode("")).toBeNull();
    expect(toFlag("1")).toBe(true);
    expect(toFlag("0")).toBe(false);
    expect(toFlag("1.00")).toBe(true);
    expect(toFlag("", true)).toBe(true);
    expect(toPositive("0.0000")).toBeNull();
    expect(toPositive("לא ידוע")).toBeNull();
    expect(toPositive("250.00")).toBe(250);
  });
});

describe("parseIsraelDateTime", () => {
  test.each([
    ["2022-11-02 12:07:00", undefined, "2022-11-02T12:07:00+02:00"],
    ["2025-03-13 00:00", undefined, "2025-03-13T00:00:00+02:00"],
    ["2022/11/01 21:05", undefined, "2022-11-01T21:05:00+02:00"],
    ["2024-03-03", undefined, "2024-03-03T00:00:00+02:00"],
    ["2026-08-20T14:15:00", undefined, "2026-08-20T14:15:00+03:00"],
    ["2026-07-28T09:30:00.000", undefined, "2026-07-28T09:30:00+03:00"],
    ["27/07/2022 10:03:26", undefined, "2022-07-27T10:03:26+03:00"],
    ["02/11/22", undefined, "2022-11-02T00:00:00+02:00"],
    ["2025-01-01", "23:59:00", "2025-01-01T23:59:00+02:00"],
    ["2010/05/20", "00:00:00", "2010-05-20T00:00:00+03:00"],
    ["2021-10-19T00:00:00.000", "07:00:00.000", "2021-10-19T00:00:00+03:00"],
    ["2056/07/31", "23:59:00", "2056-07-31T23:59:00+03:00"],
    ["2025-01-01", "24:00:00", "2025-01-01T23:59:59+02:00"],
    ["2026-08-20T11:15:00Z", undefined, "2026-08-20T14:15:00+03:00"],
    ["20221102", "1214", "2022-11-02T12:14:00+02:00"],
  ])("%s %s", (date, clock, iso) => expect(parseIsraelDateTime(date, clock)).toBe(iso));

  test("the DST switch days", () => {
    // 2025: summer time from Fri 28 March 02:00 to Sun 26 October 02:00.
    expect(parseIsraelDateTime("2025-03-28 01:59:59")).toBe("2025-03-28T01:59:59+02:00");
    expect(parseIsraelDateTime("2025-03-28 02:30:00")).toBe("2025-03-28T03:30:00+03:00");
    expect(parseIsraelDateTime("2025-03-28 03:00:00")).toBe("2025-03-28T03:00:00+03:00");
    expect(parseIsraelDateTime("2025-10-26 00:59:00")).toBe("2025-10-26T00:59:00+03:00");
    expect(parseIsraelDateTime("2025-10-26 02:00:00")).toBe("2025-10-26T02:00:00+02:00");
  });

  test.each(["1899-12-30 00:00", "01/01/0001 00:00:00", "0001-01-01", "2025-02-30", "2025-13-01", "junk", "", "  "])("%p → null", (text) => {
    expect(parseIsraelDateTime(text)).toBeNull();
  });
});

describe("discountRate", () => {
  test.each([
    ["0.25", 0.25],
    ["1", 1],
    ["15", 0.15],
    ["20.00", 0.2],
    ["100", 1],
    ["2500", 0.25],
    ["10000", 1],
    ["0", null],
    ["", null],
    ["-5", null],
    ["25000", null],
    ["abc", null],
  ])("%p → %p", (text, rate) => expect(discountRate(text)).toBe(rate));
});

describe("israelLocalIso agrees with time.ts around every DST switch", () => {
  test("2010–2030, March/April and September/October, 00:00–04:30", () => {
    let checked = 0;
    for (let y = 2010; y <= 2030; y++) {
      for (const mo of [3, 4, 9, 10]) {
        for (let d = 1; d <= (mo === 4 || mo === 9 ? 30 : 31); d++) {
          for (const [h, mi] of [[0, 0], [1, 30], [2, 0], [2, 30], [3, 0], [4, 30]] as const) {
            expect(israelLocalIso(y, mo, d, h, mi, 0)).toBe(toIsraelIso(israelLocalToDate(y, mo, d, h, mi, 0)));
            checked++;
          }
        }
      }
    }
    expect(checked).toBe(21 * 122 * 6);
  });
});
