import { describe, expect, test } from "bun:test";
import { expansion } from "../../src/search/abbreviations.ts";
import { searchTerm } from "../../src/search/hebrew.ts";

describe("abbreviations in item names", () => {
  test("stand for their words; ambiguous short forms are left alone", () => {
    expect(expansion(searchTerm('תפו"א')!)).toEqual(["תפוחי", "אדמה"]);
    expect(expansion(searchTerm("פח'")!)).toEqual(["פחית"]);
    expect(expansion(searchTerm("ג'ל")!)).toBeUndefined(); // gel, not גליל
    expect(expansion("חלב")).toBeUndefined();
  });
});
