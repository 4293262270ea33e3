import { describe, expect, test } from "bun:test";
import citiesJson from "../data/cities.json" with { type: "json" };
import { buildCityIndex, cityKey, isEilat, loadCities, REGIONS, resolveCity } from "../src/geo.ts";

describe("data/cities.json", () => {
  test("validates, ~150+ localities, unique codes and spellings", () => {
    const index = buildCityIndex(citiesJson);
    expect(index.cities.length).toBeGreaterThanOrEqual(150);
    expect(index.byCode.size).toBe(index.cities.length);
  });

  test("every region is used and Eilat is in the south", () => {
    const used = new Set(loadCities().cities.map((c) => c.region));
    for (const r of REGIONS) expect(used.has(r)).toBe(true);
    expect(loadCities().byCode.get(2600)!.region).toBe("south");
  });

  test("CBS codes from the brief", () => {
    const expected: Record<number, string> = {
      5000: "תל אביב-יפו", 4000: "חיפה", 3000: "ירושלים", 6400: "הרצליה", 2600: "אילת", 2530: "באר יעקב",
      70: "אשדוד", 7100: "אשקלון", 9000: "באר שבע", 8300: "ראשון לציון", 7900: "פתח תקווה", 7400: "נתניה",
      6100: "בני ברק", 8600: "רמת גן", 6600: "חולון", 6200: "בת ים", 8400: "רחובות", 1200: "מודיעין-מכבים-רעות",
    };
    for (const [code, name] of Object.entries(expected)) expect(resolveCity(code).city).toBe(name);
  });

  test("a spelling that would name two cities is rejected", () => {
    const clash = [
      { code: 1, name: "קריית א", name_en: "A", region: "north" },
      { code: 2, name: "קרית א", name_en: "B", region: "south" },
    ];
    expect(() => buildCityIndex(clash)).toThrow(/names both/);
  });
});

describe("resolveCity", () => {
  const tlv = { city: "תל אביב-יפו", region: "tel-aviv" };

  test("Tel Aviv in the spellings files use", () => {
    for (const raw of ["תל אביב יפו", "תל-אביב", "תל אביב", 'ת"א', "ת״א", "ת”א-יפו", "תל אביב - יפו", "תל־אביב־יפו", " 5000 ", "05000", "Tel Aviv-Yafo", "tel aviv", "TEL AVIV JAFFA"]) {
      expect({ raw, ...resolveCity(raw) }).toEqual({ raw, ...tlv });
    }
  });

  test("double yod and quotes variants", () => {
    expect(resolveCity("קרית גת")).toEqual({ city: "קריית גת", region: "south" });
    expect(resolveCity("קריית-ביאליק")).toEqual({ city: "קריית ביאליק", region: "haifa" });
    expect(resolveCity("בני עיש")).toEqual({ city: 'בני עי"ש', region: "shfela" });
    expect(resolveCity("ג׳לג׳וליה")).toEqual({ city: "ג'לג'וליה", region: "center" });
    expect(resolveCity("נצרת עילית")).toEqual({ city: "נוף הגליל", region: "north" });
  });

  test("English names", () => {
    expect(resolveCity("Haifa")).toEqual({ city: "חיפה", region: "haifa" });
    expect(resolveCity("Beer Sheva")).toEqual({ city: "באר שבע", region: "south" });
    expect(resolveCity("Petach Tikva")).toEqual({ city: "פתח תקווה", region: "center" });
  });

  test("unknown values are kept trimmed with no region; placeholders become null", () => {
    expect(resolveCity("  כפר   נידח ")).toEqual({ city: "כפר נידח", region: null });
    expect(resolveCity("99999")).toEqual({ city: "99999", region: null });
    for (const junk of [null, "", "  ", "unknown", "לא ידוע", "0", "{}"]) expect(resolveCity(junk)).toEqual({ city: null, region: null });
  });

  test("cityKey ignores spaces, hyphens, quotes and niqqud", () => {
    expect(cityKey("תֵּל אָבִיב")).toBe(cityKey("תל-אביב"));
    expect(cityKey("ראשל\"צ")).toBe(cityKey("ראשל׳׳צ".replace("׳׳", "״")));
  });
});

describe("isEilat", () => {
  test("matches Eilat in any spelling or code, nothing else", () => {
    expect(isEilat("אילת")).toBe(true);
    expect(isEilat(" אילת ")).toBe(true);
    expect(isEilat("2600")).toBe(true);
    expect(isEilat("Eilat")).toBe(true);
    expect(isEilat("אשדוד")).toBe(false);
    expect(isEilat(null)).toBe(false);
    expect(isEilat("")).toBe(false);
  });
});
