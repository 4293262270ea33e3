import { describe, expect, test } from "bun:test";
import { normaliseSize, sizeFromName, unitWord } from "../../../src/ingest/dialects/units.ts";

const size = (unitQty: string | null, quantity: number | null, unitOfMeasure: string | null = null, name: string | null = null, isWeighted = false) =>
  normaliseSize({ unitQty, quantity, unitOfMeasure, name, isWeighted });

describe("normaliseSize", () => {
  test.each([
    ["גרם", 400, { sizeAmount: 400, sizeUnit: "g" }],
    ["גרמים", 200, { sizeAmount: 200, sizeUnit: "g" }],
    ["גר'", 50, { sizeAmount: 50, sizeUnit: "g" }],
    ['ק"ג', 1.5, { sizeAmount: 1500, sizeUnit: "g" }],
    ["קילו", 2, { sizeAmount: 2000, sizeUnit: "g" }],
    ["קילוגרם", 0.5, { sizeAmount: 500, sizeUnit: "g" }],
    ['מ"ל', 120, { sizeAmount: 120, sizeUnit: "ml" }],
    ["מ״ל", 750, { sizeAmount: 750, sizeUnit: "ml" }],
    ["מיליליטרים", 1000, { sizeAmount: 1000, sizeUnit: "ml" }],
    ["ליטר", 1.5, { sizeAmount: 1500, sizeUnit: "ml" }],
    ["ל'", 2, { sizeAmount: 2000, sizeUnit: "ml" }],
    ["יחידה", 12, { sizeAmount: 12, sizeUnit: "unit" }],
    ["יח'", 6, { sizeAmount: 6, sizeUnit: "unit" }],
    ["units", 3, { sizeAmount: 3, sizeUnit: "unit" }],
    ["  100 גרם ", 100, { sizeAmount: 100, sizeUnit: "g" }],
  ] as const)("UnitQty %p × %p", (unit, quantity, expected) => expect(size(unit, quantity)).toEqual(expected));

  test("the unit word may come from UnitOfMeasure when UnitQty is empty", () => {
    expect(size(null, 250, '100 מ"ל')).toEqual({ sizeAmount: 250, sizeUnit: "ml" });
  });

  test("weighed items are priced per kilogram", () => {
    expect(size("גרם", 1000, "100 גרם", "גבינת עמק במשקל", true)).toEqual({ sizeAmount: 1000, sizeUnit: "g" });
    expect(size('ק"ג', 1, null, null, true)).toEqual({ sizeAmount: 1000, sizeUnit: "g" });
  });

  test("falls back to the name when the fields say nothing", () => {
    expect(size(null, null, null, "חלב 3% 1 ליטר")).toEqual({ sizeAmount: 1000, sizeUnit: "ml" });
    expect(size("00000" as never, 1, null, "במבה 80 גרם")).toEqual({ sizeAmount: 80, sizeUnit: "g" });
    expect(size(null, 0, "100.00", "קוטג' 250 גר")).toEqual({ sizeAmount: 250, sizeUnit: "g" });
    expect(size("מטרים", 10, null, "נייר אלומיניום")).toEqual({ sizeAmount: null, sizeUnit: null });
  });
});

describe("sizeFromName", () => {
  test.each([
    ["חלב 3% 1 ליטר", 1000, "ml"],
    ["במבה 80 גרם", 80, "g"],
    ["קוטג' 250 גר", 250, "g"],
    ["לחמניה אנג'ל רגילה 80ג'", 80, "g"],
    ["תפוצ`יפס 50גרם", 50, "g"],
    ["שמן זית 750 מ\"ל", 750, "ml"],
    ["משחת שיניים 75 מל", 75, "ml"],
    ["מים 6*1.5 ליטר", 9000, "ml"],
    ["יוגורט 4 X 150 גרם", 600, "g"],
    ["אורז 1 ק\"ג", 1000, "g"],
    ["אורז 1.5 קילו", 1500, "g"],
    ["ביצים L 12 יח'", 12, "unit"],
    ["קולה 1.5L", 1500, "ml"],
    ["Nutella 350g", 350, "g"],
    // abbreviations glued to the next word or with stray quotes, as real Bina names have them
    ["גפילטע פיש ירושלמי 6 יח'דלישס  670ג'", 6, "unit"],
    ["גם וגם משחת שיניים 120מ\"ל'", 120, "ml"],
    ["בורקס פילו גבינה 600 ג'` קפוא", 600, "g"],
    ["יין מוסקט 750מל\"", 750, "ml"],
    ["גבינה לבנה 3% טרה 250ג'מהדרין", 250, "g"],
    ["קונפיטורה מיה 340 גר'כשל\"פ", 340, "g"],
  ])("%s", (name, amount, unit) => expect(sizeFromName(name)).toEqual({ sizeAmount: amount, sizeUnit: unit as "g" }));

  test.each(["גבינה 5 גבינות", "חלב 3%", "לחם אחיד", "פסטה 3 לחמניות"])("%s has no size", (name) => expect(sizeFromName(name)).toBeNull());
});

describe("unitWord", () => {
  test("placeholders and unknown words", () => {
    expect(unitWord("00000")).toBeNull();
    expect(unitWord("מטרים")).toBeNull();
    expect(unitWord(null)).toBeNull();
  });
});
