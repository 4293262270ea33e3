import { describe, expect, test } from "bun:test";
import table from "../../data/categories.json" with { type: "json" };
import { CATEGORIES, categoryBySlug, classify, OTHER } from "../../src/search/categories.ts";

// Names that are in neither the search fixture nor the table's keywords as such: how the
// classifier does on products it was not tuned on.
const HELD_OUT: [string, string | null, string][] = [
  ["חלב סויה בטעם וניל 1 ליטר", "אלפרו", "dairy"],
  ["גבינת שמנת בטעם שום ושמיר 200 גרם", "תנובה", "dairy"],
  ["יוגורט יווני 0% 150 גרם", "שטראוס", "dairy"],
  ["לחם מחמצת כפרי 750 גרם", "ברמן", "bakery"],
  ["חלות מתוקות 2 יחידות", "אנג'ל", "bakery"],
  ["במבה בטעם תות 50 גרם", "אסם", "snacks"],
  ["צ'יפס בטעם ברביקיו 50 גרם", "שטראוס", "snacks"],
  ["שוקולד מריר 85% 100 גרם", "לינדט", "sweets"],
  ["סוכריות מנטה ללא סוכר", null, "sweets"],
  ["קפה נמס דקף 200 גרם", "עלית", "coffee-tea"],
  ["תה צמחים לימונית 20 שקיקים", "ויסוצקי", "coffee-tea"],
  ["מיץ לימונים סחוט 1 ליטר", "פריגת", "drinks"],
  ["מים בטעם אפרסק 1.5 ליטר", "נביעות", "drinks"],
  ["בירה ללא אלכוהול 330 מ\"ל", "טמפו", "alcohol"],
  ["יין לבן יבש 750 מ\"ל", "יקב", "alcohol"],
  ["פסטה פרפלה 500 גרם", "בארילה", "dry-goods"],
  ["אורז בסמטי מלא 1 ק\"ג", "סוגת", "dry-goods"],
  ["רוטב ברביקיו 375 מ\"ל", "היינץ", "spices-sauces"],
  ["פפריקה חריפה 100 גרם", "פרג", "spices-sauces"],
  ["טונה בשמן קנולה 160 גרם", "סטארקיסט", "canned"],
  ["גרגרי תירס 340 גרם", "פרי ניר", "canned"],
  ["חזה הודו פרוס 200 גרם", "זוגלובק", "meat"],
  ["נקניק סלמי פיקנטי 300 גרם", "מעדני מיקי", "meat"],
  ["פילה לברק טרי", "דגי הגליל", "fish"],
  ["פיצה משפחתית קפואה 750 גרם", "מעדנות", "frozen"],
  ["גלידה בטעם פיסטוק 1 ליטר", "שטראוס", "frozen"],
  ["אבקת כביסה לבגדים צבעוניים 2 ק\"ג", "סנו", "cleaning"],
  ["נוזל לניקוי רצפות 1 ליטר", "סנו", "cleaning"],
  ["נייר טואלט משולש 24 גלילים", "לילי", "paper"],
  ["שמפו נגד קשקשים 400 מ\"ל", "הד אנד שולדרס", "personal-care"],
  ["משחת שיניים להלבנה 75 מ\"ל", "קולגייט", "personal-care"],
  ["חיתולי בד לתינוק 3 יחידות", null, "baby"],
  ["מזון לגורי כלבים 3 ק\"ג", "פורינה", "pet"],
  ["ויטמין B12 60 טבליות", "סולגאר", "pharmacy"],
  ["שקיות אשפה גדולות 20 יחידות", "סנו", "household"],
  ["אגסים ספדונה", null, "produce"],
];

describe("the category table", () => {
  test("every category has a slug, a Hebrew label and a colour; other comes last", () => {
    expect(CATEGORIES.length).toBe(table.categories.length);
    for (const c of CATEGORIES) {
      expect(c.slug).toMatch(/^[a-z][a-z-]*$/);
      expect(c.name).toMatch(/[\u05D0-\u05EA]/);
      expect(c.color).toMatch(/^#[0-9a-f]{6}$/);
    }
    expect(CATEGORIES.at(-1)!.slug).toBe(OTHER);
    expect(new Set(CATEGORIES.map((c) => c.slug)).size).toBe(CATEGORIES.length);
    expect(categoryBySlug("dairy")!.name).toBe("חלב ומוצריו");
  });
});

describe("classify", () => {
  test("the head noun outweighs later words; modifiers for whom win anywhere", () => {
    expect(classify("שוקולד חלב עלית 100 גרם")).toBe("sweets");
    expect(classify("חלב בטעם שוקולד 1 ליטר")).toBe("dairy");
    expect(classify("עוגת שוקולד 400 גרם")).toBe("bakery");
    expect(classify("חטיף לכלבים בטעם עוף")).toBe("pet");
    expect(classify("שמפו לתינוק 750 מ\"ל")).toBe("baby");
    expect(classify("פילה אמנון קפוא 800 גרם")).toBe("frozen");
    expect(classify("מרכך כביסה 4 ליטר")).toBe("cleaning");
    expect(classify("מרכך שיער 700 מ\"ל")).toBe("personal-care");
  });

  test("spelling does not matter; nothing matching gives other; the manufacturer tips a tie", () => {
    expect(classify("קוטג׳ 5%")).toBe("dairy");
    expect(classify("חָלָב 3%")).toBe("dairy");
    expect(classify("XYZ 123")).toBe(OTHER);
    expect(classify("")).toBe(OTHER);
    expect(classify("מארז חסכון", "סנו")).toBe("cleaning");
  });

  test("held-out names: at least 85 % filed where a shopper would look", () => {
    const wrong = HELD_OUT.filter(([name, maker, expected]) => classify(name, maker) !== expected).map(([name, maker, expected]) => `${name} → ${classify(name, maker)} (expected ${expected})`);
    const accuracy = 1 - wrong.length / HELD_OUT.length;
    console.log(`classifier on ${HELD_OUT.length} held-out names: ${(accuracy * 100).toFixed(1)} %${wrong.length ? "\n  " + wrong.join("\n  ") : ""}`);
    expect(accuracy).toBeGreaterThanOrEqual(0.85);
  });
});
