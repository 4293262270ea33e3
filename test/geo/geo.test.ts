import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import citiesJson from "../../data/cities.json" with { type: "json" };
import { buildCityIndex, cityFilterName, cityKey, findCity, isEilat, loadCities, REGIONS, resolveCity } from "../../src/geo/geo.ts";
import { readPriceFile } from "../../src/ingest/parse/read-file.ts";
import { REAL_SAMPLES, realSamplesFor } from "../helpers/real-samples.ts";

const REAL = REAL_SAMPLES;
const present = realSamplesFor("real Stores files");

describe("data/cities.json", () => {
  test("validates: 300+ CBS localities with unique codes, a few named areas without one", () => {
    const index = buildCityIndex(citiesJson);
    const coded = index.cities.filter((c) => c.code !== undefined);
    expect(coded.length).toBeGreaterThanOrEqual(300);
    expect(index.byCode.size).toBe(coded.length);
    expect(index.cities.filter((c) => c.code === undefined).map((c) => c.name).sort()).toEqual(['נתב"ג', "גוש עציון", "צמח"].sort());
  });

  test("the demo's fallback cities (the first 60) all carry a code", () => {
    for (const city of loadCities().cities.slice(0, 60)) expect(city.code).toBeGreaterThan(0);
  });

  test("every region is used and Eilat is in the south", () => {
    const used = new Set(loadCities().cities.map((c) => c.region));
    for (const r of REGIONS) expect(used.has(r)).toBe(true);
    expect(loadCities().byCode.get(2600)!.region).toBe("south");
  });

  test("CBS codes → canonical names (from the CBS locality file, by hand)", () => {
    const expected: Record<number, string> = {
      5000: "תל אביב-יפו", 4000: "חיפה", 3000: "ירושלים", 6400: "הרצליה", 2600: "אילת", 2530: "באר יעקב",
      70: "אשדוד", 7100: "אשקלון", 9000: "באר שבע", 8300: "ראשון לציון", 7900: "פתח תקווה", 7400: "נתניה",
      6100: "בני ברק", 8600: "רמת גן", 6600: "חולון", 6200: "בת ים", 8400: "רחובות", 1200: "מודיעין-מכבים-רעות",
      // Codes the first table had wrong, and localities it lacked.
      509: "כפר כנא", 510: "כפר מנדא", 529: "אעבלין", 478: "אכסאל", 1268: "מיתר", 922: "רכסים",
      2100: "טירת כרמל", 240: "יקנעם עילית", 1061: "נוף הגליל", 3797: "מודיעין עילית", 1345: "צור יצחק",
      3779: "כוכב יעקב", 696: 'כפר חב"ד', 1319: "בת חפר", 375: "מגל", 2061: "תדהר", 4501: "ע'ג'ר", 1326: 'בסמ"ה',
    };
    for (const [code, name] of Object.entries(expected)) expect({ code, city: resolveCity(code).city }).toEqual({ code, city: name });
  });

  test("regions follow the CBS districts; the Central district by natural region", () => {
    const expected: Record<string, string> = {
      "הרצליה": "tel-aviv", "רמת השרון": "tel-aviv", "כפר שמריהו": "tel-aviv", "קריית אונו": "tel-aviv",
      "נתניה": "sharon", "כפר סבא": "sharon", "רעננה": "sharon", "הוד השרון": "sharon", "ג'לג'וליה": "sharon", "טייבה": "sharon", "צור יצחק": "sharon",
      "פתח תקווה": "center", "ראש העין": "center", "כפר קאסם": "center", "מודיעין": "center", "באר יעקב": "center", "בית דגן": "center", "לוד": "center",
      "ראשון לציון": "shfela", "רחובות": "shfela", "נס ציונה": "shfela", "גדרה": "shfela", "גן יבנה": "shfela",
      "חדרה": "haifa", "קריית טבעון": "haifa", "אום אל-פחם": "haifa", "עתלית": "haifa",
      "יקנעם עילית": "north", "רמת ישי": "north", "קצרין": "north", "נוף הגליל": "north", "אלומות": "north",
      "אשדוד": "south", "קריית גת": "south", "רהט": "south", "אילת": "south",
      "בית שמש": "jerusalem", "מבשרת ציון": "jerusalem", "אבו גוש": "jerusalem",
      "מעלה אדומים": "judea-samaria", "מודיעין עילית": "judea-samaria", "אריאל": "judea-samaria", "גבעת זאב": "judea-samaria", "הר אדר": "judea-samaria", "גוש עציון": "judea-samaria",
    };
    for (const [city, region] of Object.entries(expected)) expect({ city, region: resolveCity(city).region }).toEqual({ city, region });
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

  // Hand-written: raw text as files publish it → canonical name and region.
  const tricky: [string, string, string][] = [
    ["טירת הכרמל", "טירת כרמל", "haifa"],
    ["טירת-הכרמל", "טירת כרמל", "haifa"],
    ["יוקנעם", "יקנעם עילית", "north"],
    ["יוקנעם עלית", "יקנעם עילית", "north"],
    ["נצרת עלית", "נוף הגליל", "north"],
    ["נצרת עילית", "נוף הגליל", "north"],
    ["הרצליה פיתוח", "הרצליה", "tel-aviv"],
    ["הרצליה-פיתוח", "הרצליה", "tel-aviv"],
    ["הרצלייה", "הרצליה", "tel-aviv"],
    ["מודעין", "מודיעין-מכבים-רעות", "center"],
    ["מודיעין מכבים רעות", "מודיעין-מכבים-רעות", "center"],
    ["מודעין עילית", "מודיעין עילית", "judea-samaria"],
    ["מודיעין עלית", "מודיעין עילית", "judea-samaria"],
    ["קרית ספר", "מודיעין עילית", "judea-samaria"],
    ["קרית גת", "קריית גת", "south"],
    ["קריית-ביאליק", "קריית ביאליק", "haifa"],
    ["ק. אתא", "קריית אתא", "haifa"],
    ["ק' מוצקין", "קריית מוצקין", "haifa"],
    ["צומת קרית אתא", "קריית אתא", "haifa"],
    ["מחלף יבנה", "יבנה", "shfela"],
    ["כפר סבא צפון", "כפר סבא", "sharon"],
    ["קניון מבשרת", "מבשרת ציון", "jerusalem"],
    ["אאוטלט גן-שמואל", "גן שמואל", "haifa"],
    ["קיבוץ מגל", "מגל", "haifa"],
    ["ליד קיבוץ מגל", "מגל", "haifa"],
    ["מושב נווה ירק", "נווה ירק", "sharon"],
    ["נוה ירק", "נווה ירק", "sharon"],
    ["מושב נורדייה", "נורדיה", "sharon"],
    ["מתחם מול כינרת,צמח", "צמח", "north"],
    ["גוש עציון", "גוש עציון", "judea-samaria"],
    ['נתב"ג', 'נתב"ג', "center"],
    ["באקה אל-גארבייה", "באקה אל-גרביה", "haifa"],
    ["אום אל פאחם", "אום אל-פחם", "haifa"],
    ["דלית אל כרמל", "דאלית אל-כרמל", "haifa"],
    ["סכנין", "סח'נין", "north"],
    ["ג׳לג׳וליה", "ג'לג'וליה", "sharon"],
    ["בני עיש", 'בני עי"ש', "shfela"],
    ["כפר חבד", 'כפר חב"ד', "center"],
    ["פתח תקוה", "פתח תקווה", "center"],
    ["באר-טוביה", "באר טוביה", "south"],
    ["גבעת אולגה", "חדרה", "haifa"],
    ["צורן", "קדימה-צורן", "sharon"],
    ["מישור אדומים", "מעלה אדומים", "judea-samaria"],
    ["\u200Fחיפה\u200F", "חיפה", "haifa"],
    ["ראשון   לציון", "ראשון לציון", "shfela"],
    ["בֵּית שְׁאָן", "בית שאן", "north"],
    ["Qiryat Atta", "קריית אתא", "haifa"],
    ["Kiryat Ata", "קריית אתא", "haifa"],
    ["Beer Sheva", "באר שבע", "south"],
    ["Haifa", "חיפה", "haifa"],
    ["Petach Tikva", "פתח תקווה", "center"],
  ];
  test.each(tricky)("%p → %p (%p)", (raw, city, region) => {
    expect(resolveCity(raw)).toEqual({ city, region });
  });

  test("unknown values are kept trimmed with a null region (never an empty string); placeholders become null", () => {
    expect(resolveCity("  כפר   נידח ")).toEqual({ city: "כפר נידח", region: null });
    expect(resolveCity("99999")).toEqual({ city: "99999", region: null });
    for (const junk of [null, "", "  ", "unknown", "לא ידוע", "0", "{}", "\u200F"]) expect(resolveCity(junk)).toEqual({ city: null, region: null });
  });

  test("the fallbacks do not overreach: place words alone, other words, ambiguous places stay unknown", () => {
    // ערבה (the Arava) must not become עראבה; בית הכרם is a Jerusalem quarter and a Galilee valley.
    for (const raw of ["ערבה", "בית הכרם", "קיבוץ", "צומת", "מושב כפר נידח", "צומת מסובים", "כביש 6", "חיפה דרום מזרח 12", "ק"]) {
      expect({ raw, ...resolveCity(raw) }).toEqual({ raw, city: raw, region: null });
    }
    // A comma list naming two different localities names none.
    expect(resolveCity("חיפה, עכו").region).toBeNull();
  });

  test("cityKey ignores spaces, hyphens, quotes, niqqud and direction marks", () => {
    expect(cityKey("תֵּל אָבִיב")).toBe(cityKey("תל-אביב"));
    expect(cityKey("ראשל\"צ")).toBe(cityKey("ראשל׳׳צ".replace("׳׳", "״")));
    expect(cityKey("\u202Bחיפה\u202C")).toBe(cityKey("חיפה"));
    expect(cityKey("נצרת עלית")).toBe(cityKey("נצרת עילית"));
    expect(cityKey("עליתה")).toBe("עליתה");
  });

  test("findCity and cityFilterName use the same spellings", () => {
    expect(findCity("ליד קיבוץ מגל")?.code).toBe(375);
    expect(cityFilterName(" ק. אתא ")).toBe("קריית אתא");
    expect(cityFilterName("6400")).toBe("הרצליה");
    expect(cityFilterName("כביש  6")).toBe("כביש 6");
  });
});

describe("isEilat", () => {
  test("matches Eilat in any spelling or code, nothing else", () => {
    expect(isEilat("אילת")).toBe(true);
    expect(isEilat(" אילת ")).toBe(true);
    expect(isEilat("2600")).toBe(true);
    expect(isEilat("Eilat")).toBe(true);
    expect(isEilat("Elat")).toBe(true);
    expect(isEilat("אשדוד")).toBe(false);
    expect(isEilat("גוש עציון")).toBe(false);
    expect(isEilat(null)).toBe(false);
    expect(isEilat("")).toBe(false);
  });
});

describe("demo cities", () => {
  test("every City the demo seed publishes resolves, or is a placeholder", () => {
    const seen = new Set<string>();
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === "object") {
        const city = (node as { city?: unknown }).city;
        if (typeof city === "string") seen.add(city);
        Object.values(node).forEach(walk);
      }
    };
    walk(JSON.parse(readFileSync(join(import.meta.dir, "../../data/demo/stores.json"), "utf8")));
    expect(seen.size).toBeGreaterThan(20);
    for (const city of seen) {
      const r = resolveCity(city);
      expect({ city, resolved: r.city === null || r.region !== null }).toEqual({ city, resolved: true });
    }
  });
});

// City values in the real Stores files that are not localities: a road, a street, junctions and
// sites outside any locality, a description, and one name of two different places.
const NOT_LOCALITIES = new Set([
  "כביש 6", // Route 6 service stations
  "גורדון", // a Tel Aviv street (Super-Pharm)
  "בית הכרם", // the Galilee valley here (Route 85), also a Jerusalem quarter
  "צפונה מצומת מגידו", // "north of Megiddo junction"
  "צומת הגומא",
  "צומת חנניה",
  "צומת מסובים",
  "גני חוגה", // a recreation site at Hamadia junction
  "גן הצפון", // a roadside site between Metsudot and Banias junctions
  "לטרון", // Latrun interchange: Mateh Yehuda / Gezer border
]);

describe.skipIf(!present)("real Stores files", () => {
  const values = new Map<string, string>();
  if (present) {
    for (const fileName of readdirSync(REAL).filter((f) => /^Stores/i.test(f))) {
      const { parsed } = readPriceFile(readFileSync(join(REAL, fileName)), fileName);
      if (parsed.kind !== "stores") continue;
      for (const store of parsed.stores) if (store.city !== null) values.set(store.city, fileName);
    }
  }

  test("the six Stores files hold 250+ distinct City values", () => {
    expect(values.size).toBeGreaterThan(250);
  });

  test("every City value that names a locality resolves to a region", () => {
    const unresolved = [...values.keys()].filter((city) => resolveCity(city).region === null && !NOT_LOCALITIES.has(city));
    expect(unresolved).toEqual([]);
  });

  test("the non-localities still occur and still resolve to no region (the list stays honest)", () => {
    for (const city of NOT_LOCALITIES) expect({ city, seen: values.has(city), region: resolveCity(city).region }).toEqual({ city, seen: true, region: null });
  });
});
