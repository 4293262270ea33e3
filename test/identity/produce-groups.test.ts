import { describe, expect, test } from "bun:test";
import { PRODUCE_GROUPS, groupingName, produceGroups } from "../../src/identity/produce-groups.ts";
import { bestName } from "../../src/identity/names.ts";
import table from "../../data/produce-groups.json" with { type: "json" };
import { GENERIC_ID } from "../../src/identity/product-id.ts";

// Names as chains publish them (the shapes of the real files: singular/plural, במשקל, טרי,
// ק"ג, תפזורת, geresh/gershayim, niqqud), and how each must (or must not) be grouped.
const MUST_GROUP: [name: string, soldBy: "kg" | "unit", group: string][] = [
  ["עגבניות", "kg", "g-tomatoes"],
  ["עגבניה", "kg", "g-tomatoes"],
  ["עגבנייה טרייה", "kg", "g-tomatoes"],
  ["עגבניות במשקל", "kg", "g-tomatoes"],
  ['עגבניות לק"ג', "kg", "g-tomatoes"],
  ["עגבניה - טרי", "kg", "g-tomatoes"],
  ["עַגְבָנִיָּה", "kg", "g-tomatoes"],
  ["עגבניות שרי", "kg", "g-cherry-tomatoes"],
  ["עגבניה שרי במשקל", "kg", "g-cherry-tomatoes"],
  ["מלפפון ירוק", "kg", "g-cucumbers"],
  ["מלפפונים", "kg", "g-cucumbers"],
  ["בננה", "kg", "g-bananas"],
  ['תפו"א לבן תפזורת', "kg", "g-potatoes"],
  ["תפו״א לבן", "kg", "g-potatoes"],
  ["תפוחי אדמה", "kg", "g-potatoes"],
  ["בצל יבש", "kg", "g-onions"],
  ["בצל", "kg", "g-onions"],
  ["בצל סגול", "kg", "g-red-onions"],
  ["ג'ינג'ר", "kg", "g-ginger"],
  ["פטרוזיליה", "unit", "g-parsley"],
  ["חזה עוף טרי במשקל", "kg", "g-chicken-breast"],
];

const MUST_NOT_GROUP: [name: string, soldBy: "kg" | "unit" | null, why: string][] = [
  ["עגבניות", "unit", "tomatoes are compared per kilogram; an item sold per unit/pack is another product"],
  ["עגבניות", null, "a GTIN item not sold by weight is a packaged product"],
  ["עגבניות ארוז", "kg", "packed is not loose"],
  ["עגבניות תמר", "kg", "a variety of its own"],
  ["עגבניות אשכולות", "kg", "vine tomatoes: not listed"],
  ["רסק עגבניות", "kg", "tomato paste"],
  ["עגבניות מרוסקות", "kg", "canned"],
  ["מלפפונים חמוצים", "kg", "pickles"],
  ["מלפפון בייבי", "kg", "baby cucumbers: not listed"],
  ["בננה מיובשת", "kg", "dried"],
  ["בצל ירוק", "unit", "spring onion is not onions"],
  ["בצל ירוק", "kg", "spring onion is not onions"],
  ["תפוח עץ", "kg", "which apple? not listed"],
  ["שניצל תירס", "kg", "not chicken schnitzel"],
  ["", "kg", "no name"],
];

describe("grouping rules (data/produce-groups.json)", () => {
  test.each(MUST_GROUP)("%p sold by %p groups as %p", (name, soldBy, id) => {
    expect(PRODUCE_GROUPS.match(name, soldBy)?.id).toBe(id);
  });

  test.each(MUST_NOT_GROUP)("%p sold by %p is not grouped (%s)", (name, soldBy) => {
    const group = PRODUCE_GROUPS.match(name, soldBy);
    // Never into the group its words suggest, nor any other.
    expect(group).toBeUndefined();
  });

  test("cherry tomatoes are never tomatoes", () => {
    expect(PRODUCE_GROUPS.match("עגבניות שרי", "kg")?.id).not.toBe(PRODUCE_GROUPS.match("עגבניות", "kg")?.id);
  });

  test("normalisation: niqqud, quotes, punctuation and noise words", () => {
    const noise = new Set(table.noise);
    expect(groupingName('תפו"א לבן - תפזורת (טרי)', noise)).toBe("תפוא לבן");
    expect(groupingName("  עגבניה   במשקל ", noise)).toBe("עגבניה");
    expect(groupingName("ג׳ינג׳ר", noise)).toBe("גינגר");
  });

  test("the table: ids are generic ids, unique, and no name is in two groups", () => {
    const ids = table.groups.map((g) => g.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(GENERIC_ID.test(id)).toBe(true);
    expect(() => produceGroups({ ...table, groups: [...table.groups, { id: "g-more-tomatoes", name: "x", sold_by: "kg", category: "produce", names: ["עגבניה"] }] })).toThrow(
      "is in g-tomatoes and g-more-tomatoes",
    );
  });
});

describe("name choice (src/identity/names.ts)", () => {
  test("a cut-off prefix never wins, even when more chains publish it", () => {
    const full = "שוקולד פרה עלית חלב 4*100 גרם";
    expect(bestName([full.slice(0, 20), full.slice(0, 20), full.slice(0, 20), full])).toBe(full);
  });
  test("then the most common; then the longer; then code-point order — whatever the order given", () => {
    expect(bestName(["במבה 80 גרם", "במבה אסם 80 גרם", "במבה 80 גרם"])).toBe("במבה 80 גרם");
    expect(bestName(["חלב תנובה 3%", "חלב 3% 1 ליטר"])).toBe("חלב 3% 1 ליטר");
    expect(bestName(["ב", "א"])).toBe("א");
    expect(bestName(["א", "ב"])).toBe("א");
  });
  test("white space is tidied; nulls and empty names do not vote", () => {
    expect(bestName(["  חלב   3% ", null, ""])).toBe("חלב 3%");
    expect(bestName([null, null])).toBeNull();
  });
});
