import { describe, expect, test } from "bun:test";
import { analyzeName, canonicalToken, nameKey, normalize, parseQuantities, prefixStems, searchTerm, searchTerms, tokenize } from "../../src/search/hebrew.ts";

describe("normalize", () => {
  test("niqqud, presentation forms and Latin accents go", () => {
    expect(normalize("שׁוֹקוֹלָד מְרִיר")).toBe("שוקולד מריר");
    expect(normalize("\uFB2Aמן")).toBe("שמן"); // שׁ presentation form
    expect(normalize("Café CRÈME")).toBe("cafe creme");
  });

  test("geresh and gershayim look-alikes become ' and \"", () => {
    for (const s of ["קוטג'", "קוטג׳", "קוטג’", "קוטג‘", "קוטג`", "קוטג´"]) expect(normalize(s)).toBe("קוטג'");
    for (const s of ['מ"ל', "מ״ל", "מ“ל", "מ”ל", "מ''ל", "מ׳׳ל"]) expect(normalize(s)).toBe('מ"ל');
  });

  test("maqaf, decimal comma, spelled-out percent, hyphenated prefix letter, pack signs", () => {
    expect(normalize("קוקה\u05BEקולה")).toBe("קוקה-קולה");
    expect(normalize("1,5 ליטר")).toBe("1.5 ליטר");
    expect(normalize("חלב 3 אחוז")).toBe("חלב 3%");
    // A percent sign apart from its number, or before it (right-to-left text in visual order).
    expect(normalize("חלב 3 % 1 ליטר")).toBe("חלב 3% 1 ליטר");
    expect(normalize("קוטג' בקטנה % 5 100 ג'")).toBe("קוטג' בקטנה 5% 100 ג'");
    expect(normalize("יוגורט תות %3 גביע")).toBe("יוגורט תות 3% גביע");
    expect(normalize("גבינה מלוחה %16עדי")).toBe("גבינה מלוחה 16%עדי");
    expect(normalize("מיץ 100% 240 מ\"ל")).toBe('מיץ 100% 240 מ"ל'); // a number after a percentage stays
    expect(searchTerms("יוגורט אפרסק %")).toEqual(["יוגורט", "אפרסק"]);
    expect(normalize("ל-ליזין ב-100")).toBe("ליזין 100");
    expect(normalize("מים 6*1.5 ליטר, 4 x 25 גרם")).toBe("מים 6 1.5 ליטר, 4 25 גרם");
  });
});

describe("tokens and terms", () => {
  test("letters and digits never share a token; quotes stay inside Hebrew words", () => {
    expect(tokenize('ברזל עדין25מ"ג')).toEqual(["ברזל", "עדין", "25", 'מ"ג']);
    expect(tokenize("במבה 400גר'")).toEqual(["במבה", "400", "גר'"]);
    expect(tokenize("קוטג׳ 5% COCA-COLA")).toEqual(["קוטג'", "5%", "coca", "cola"]);
  });

  test("canonical tokens: quotes out, finals folded, numbers and units unified", () => {
    expect(canonicalToken('מ"ל')).toBe("מל");
    expect(canonicalToken("גרם")).toBe("גרמ");
    expect(canonicalToken("גר'")).toBe("גרמ");
    expect(canonicalToken("1.50")).toBe("1.5");
    expect(canonicalToken("3.0%")).toBe("3%");
    expect(canonicalToken("שמן")).toBe("שמנ");
  });

  test("numbers, units and one-letter Hebrew words stay out of the index; percentages stay in", () => {
    expect(searchTerm("250")).toBeNull();
    expect(searchTerm('ק"ג')).toBeNull();
    expect(searchTerm("ml")).toBeNull();
    expect(searchTerm("ו")).toBeNull();
    expect(searchTerm("3%")).toBe("3%");
    expect(searchTerm("c")).toBe("c");
    expect(searchTerms("קוקה קולה זירו 1.5 ל'")).toEqual(["קוקה", "קולה", "זירו"]);
    expect(searchTerms("חָלָב תְּנוּבָה 3% 1 לִיטֶר")).toEqual(["חלב", "תנובה", "3%"]);
  });

  test("exact-name keys agree across spellings and keep sizes", () => {
    expect(nameKey("קוטג׳ 5% 250 גר'")).toBe(nameKey("קוטג' 5% 250 גרם"));
    expect(nameKey("קוקה קולה 1,5 ל׳")).toBe(nameKey("קוקה קולה 1.5 ליטר"));
    expect(nameKey("במבה 80 גרם")).not.toBe(nameKey("במבה 25 גרם"));
  });

  test("analyzeName gives terms, key and the first package size in one pass", () => {
    expect(analyzeName("מים מינרליים 6*1.5 ליטר")).toEqual({
      terms: ["מימ", "מינרליימ"],
      key: "מימ מינרליימ 6 1.5 ליטר",
      quantity: { amount: 1500, unit: "ml", pack: 6 },
    });
    expect(analyzeName("עגבניות").quantity).toBeNull();
  });
});

describe("prefixStems", () => {
  test("strips prefix-letter clusters, longest remainder first", () => {
    expect(prefixStems("והחלב")).toEqual(["החלב", "חלב"]);
    expect(prefixStems("בטעמ")).toEqual(["טעמ"]);
    expect(prefixStems("שבמבה")).toEqual(["במבה", "מבה"]);
    expect(prefixStems("וכשהחלב", 4)).toEqual(["כשהחלב", "שהחלב", "החלב", "חלב"]);
    expect(prefixStems("וכשהחלב")).toEqual(["כשהחלב", "שהחלב", "החלב"]); // index side: clusters up to 3 letters
  });

  test("leaves short words, other first letters and non-Hebrew terms alone", () => {
    expect(prefixStems("חלב")).toEqual([]);
    expect(prefixStems("מים")).toEqual([]);
    expect(prefixStems("שוקולד")).toEqual(["וקולד"]);
    expect(prefixStems("תנובה")).toEqual([]);
    expect(prefixStems("coca")).toEqual([]);
    expect(prefixStems("הבית")).toEqual(["בית"]);
    expect(prefixStems("לבמבה")).toEqual(["במבה"]); // לב is not a cluster
  });
});

describe("parseQuantities", () => {
  test("sizes with units, converted to g, ml or units", () => {
    const cases: [string, { amount: number; unit: string; pack: number | null }][] = [
      ['שמנת מתוקה 250 מ"ל', { amount: 250, unit: "ml", pack: null }],
      ["קוקה קולה 1.5 ל'", { amount: 1500, unit: "ml", pack: null }],
      ["אורז 1 ק״ג", { amount: 1000, unit: "g", pack: null }],
      ["במבה 80 גר", { amount: 80, unit: "g", pack: null }],
      ["מים 6*1.5 ליטר", { amount: 1500, unit: "ml", pack: 6 }],
      ["במבה 4 x 25 גרם", { amount: 25, unit: "g", pack: 4 }],
      ["אקמול 500מ\"ג", { amount: 0.5, unit: "g", pack: null }],
      ["חיתולים 48 יח'", { amount: 48, unit: "unit", pack: null }],
      ["COCA COLA 330 ML", { amount: 330, unit: "ml", pack: null }],
      ["קמח 1,5 קילו", { amount: 1500, unit: "g", pack: null }],
    ];
    for (const [text, expected] of cases) expect(parseQuantities(text).quantities[0]).toMatchObject(expected);
  });

  test("the rest of the text is what remains to search", () => {
    expect(parseQuantities("חלב 3% 1 ליטר")).toEqual({ quantities: [{ amount: 1000, unit: "ml", pack: null, text: "1 ליטר" }], rest: "חלב 3%" });
    expect(parseQuantities("ליטר חלב")).toEqual({ quantities: [{ amount: 1000, unit: "ml", pack: null, text: "ליטר" }], rest: "חלב" });
    expect(parseQuantities('שמנת מ"ל').rest).toBe("שמנת"); // an unambiguous unit word alone goes
    expect(parseQuantities("גרנולה גר").rest).toBe("גרנולה גר"); // short bare forms may be a word being typed
    expect(parseQuantities("3 שכבות").quantities).toEqual([]);
  });
});
