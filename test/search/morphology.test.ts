import { describe, expect, test } from "bun:test";
import { searchTerm } from "../../src/search/hebrew.ts";
import { numberKey, numberVariant } from "../../src/search/morphology.ts";

/** The number key of a word as typed (canonical first: finals folded, quotes dropped). */
const key = (word: string) => numberKey(searchTerm(word)!);

describe("numberKey: one key for a noun's singular and plural", () => {
  test("regular plurals in -ים and -ות, plene -ייה, -ית/-יות", () => {
    for (const [a, b] of [
      ["תפוח", "תפוחים"], ["בצל", "בצלים"], ["מלפפון", "מלפפונים"], ["לימון", "לימונים"], ["גזר", "גזרים"], ["חציל", "חצילים"],
      ["עגבניה", "עגבניות"], ["עגבנייה", "עגבניות"], ["לחמניה", "לחמניות"], ["נקניקיה", "נקניקיות"], ["גבינה", "גבינות"],
      ["אשכולית", "אשכוליות"], ["שקית", "שקיות"], ["בטטה", "בטטות"], ["אפרסק", "אפרסקים"],
    ]) expect(`${a} ${key(a)}`).toBe(`${a} ${key(b!)}`);
  });

  test("irregular produce, four-letter singulars and construct forms", () => {
    for (const [a, b] of [["בננה", "בננות"], ["ביצה", "ביצים"], ["פיתה", "פיתות"], ["משקה", "משקאות"], ["תפוחי", "תפוח"], ["גבינת", "גבינה"], ["ביצי", "ביצים"], ["תות", "תותים"]]) {
      expect(`${a} ${key(a!)}`).toBe(`${a} ${key(b!)}`);
    }
  });

  test("different words keep different keys", () => {
    expect(key("חלבה")).not.toBe(key("חלב")); // halva is not milk
    expect(key("לבנה")).not.toBe(key("לבן"));
    expect(key("סוכרזית")).not.toBe(key("סוכר"));
    expect(key("חלב")).toBe("חלב");
    expect(key("מים")).toBe("מימ"); // too short for a suffix
  });

  test("numberVariant: only Hebrew words whose key differs", () => {
    expect(numberVariant(searchTerm("בננות")!)).toBe("בננ");
    expect(numberVariant("חלב")).toBeNull();
    expect(numberVariant("apples")).toBeNull();
  });
});
