import { describe, expect, test } from "bun:test";
import { parseIsraelDateTime, readPublishedTime } from "../../../src/ingest/dialects/dates.ts";

describe("dates in the chains' forms", () => {
  test.each([
    // SQL Server's text form, cut to its column (no AM/PM: read as AM, 12 = midnight) and whole
    ["May 18 2015 12:0", null, "2015-05-18T00:00:00+03:00"],
    ["Jun  1 2015 11:59PM", null, "2015-06-01T23:59:00+03:00"],
    ["Jan 5 2026 9:05AM", null, "2026-01-05T09:05:00+02:00"],
    ["Dec 31 2025 12:00PM", null, "2025-12-31T12:00:00+02:00"],
    ["Jun  1 2015", null, "2015-06-01T00:00:00+03:00"],
    // .NET's US form (month first, told apart by AM/PM)
    ["5/18/2015 11:59:00 PM", null, "2015-05-18T23:59:00+03:00"],
    // the research notes' forms
    ["2015/06/03", "08:30", "2015-06-03T08:30:00+03:00"],
    ["2031-01-01T02:59:00.000", null, "2031-01-01T02:59:00+02:00"],
    ["2026-07-28", "00:00:00.000", "2026-07-28T00:00:00+03:00"],
    ["27/07/2022 10:03:26", null, "2022-07-27T10:03:26+03:00"],
    ["02/11/22", "06:00:01", "2022-11-02T06:00:01+02:00"],
    ["20260824", "030000", "2026-08-24T03:00:00+03:00"],
    ["2025-01-01", "11:59 PM", "2025-01-01T23:59:00+02:00"],
  ] as const)("%s %s", (date, clock, expected) => {
    expect(parseIsraelDateTime(date, clock)).toBe(expected);
  });

  test("a placeholder is no date; a value no form reads is unreadable, with its raw text", () => {
    expect(readPublishedTime("1899-12-30 00:00")).toEqual({ value: null, unreadable: null });
    expect(readPublishedTime("01/01/0001 00:00:00")).toEqual({ value: null, unreadable: null });
    expect(readPublishedTime("9999-12-31")).toEqual({ value: null, unreadable: null });
    expect(readPublishedTime("")).toEqual({ value: null, unreadable: null });
    expect(readPublishedTime("31 בדצמבר")).toEqual({ value: null, unreadable: "31 בדצמבר" });
    expect(readPublishedTime("2026-13-01", "10:00")).toEqual({ value: null, unreadable: "2026-13-01 10:00" });
    expect(readPublishedTime("Foo 18 2015 12:0")).toEqual({ value: null, unreadable: "Foo 18 2015 12:0" });
  });
});
