import { describe, expect, test } from "bun:test";
import table from "../../src/search/english.json" with { type: "json" };
import { ENGLISH_PHRASES, translations } from "../../src/search/english.ts";
import { searchTerms } from "../../src/search/hebrew.ts";

const hebrew = (q: string) => translations(searchTerms(q)).map((t) => t.hebrew.join(" "));

describe("the English dictionary (src/search/english.json)", () => {
  test("at least 500 phrases; keys lower-case Latin, values Hebrew search words", () => {
    const entries = Object.entries(table.words);
    expect(entries.length).toBeGreaterThanOrEqual(500);
    expect(ENGLISH_PHRASES).toBeGreaterThanOrEqual(500);
    const bad = entries.filter(([en, he]) => !/^[a-z][a-z &'ü-]*$/.test(en) || en !== en.trim() || /\s\s/.test(en) || !/[\u05D0-\u05EA]/.test(he) || searchTerms(he).length === 0);
    expect(bad).toEqual([]);
  });

  test("the common grocery words of the issue", () => {
    for (const [en, he] of [
      ["milk", "חלב"], ["eggs", "ביצימ"], ["bread", "לחמ"], ["cottage", "קוטג"], ["hummus", "חומוס"], ["tahini", "טחינה"], ["rice", "אורז"], ["sugar", "סוכר"],
      ["olive oil", "שמנ זית"], ["toilet paper", "נייר טואלט"], ["diapers", "חיתולימ"], ["shampoo", "שמפו"], ["beer", "בירה"], ["wine", "יינ"], ["ketchup", "קטשופ"],
      ["bamba", "במבה"], ["bissli", "ביסלי"], ["tnuva", "תנובה"], ["shufersal", "שופרסל"],
    ]) expect(`${en}: ${hebrew(en)[0]}`).toBe(`${en}: ${he}`);
  });

  test("longest phrase first, English plurals, other words left alone", () => {
    expect(translations(searchTerms("toilet paper לילי"))).toEqual([{ at: 0, length: 2, hebrew: ["נייר", "טואלט"] }]);
    expect(hebrew("tomatoes")).toEqual(["עגבניות"]);
    expect(hebrew("strawberry")).toEqual(["תות"]);
    expect(hebrew("cherries")).toEqual(["דובדבנימ"]);
    expect(hebrew("daawat")).toEqual([]);
    expect(translations(searchTerms("חלב milk"))).toEqual([{ at: 1, length: 1, hebrew: ["חלב"] }]);
  });
});
