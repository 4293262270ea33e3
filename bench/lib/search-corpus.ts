import { seeded } from "./rng.ts";

/**
 * A synthetic product catalogue for the search bench: Hebrew head nouns, modifiers and brands
 * drawn with Zipf-skewed frequencies (real words first, then pseudo-words for the long tail),
 * package sizes and fat percentages, so that common words are as common as in a real
 * supermarket catalogue or more (the top noun is in ~5 % of names, the top brand in ~5 %).
 */
export interface CorpusProduct {
  barcode: string;
  name: string;
  manufacturer: string;
}

export const HEADS = [
  "חלב", "גבינה", "שוקולד", "קפה", "במבה", "יוגורט", "לחם", "מיץ", "משקה", "עוגיות", "שמנת", "פסטה", "אורז", "מים", "ביסלי", "חטיף",
  "קוטג'", "גבינת", "תה", "בירה", "יין", "שמן", "רוטב", "טחינה", "חומוס", "טונה", "שניצל", "נקניקיות", "עוף", "בשר", "סלמון", "פיצה",
  "בורקס", "גלידה", "ירקות", "מעדן", "לחמניות", "פיתות", "קמח", "סוכר", "קטשופ", "מיונז", "תירס", "זיתים", "המבורגר", "דג", "ופלים",
  "שמפו", "סבון", "מרכך", "אקונומיקה", "מגבונים", "חיתולים", "דאודורנט", "קרם", "סוללות", "שקיות", "נייר", "מטרנה", "עוגה", "פתיתים",
  "קוסקוס", "עדשים", "שעועית", "אטריות", "ספגטי", "דגני", "גרנולה", "קורנפלקס", "ריבה", "דבש", "חמאה", "לבן", "אשל", "שוקו", "פודינג",
  "קרקר", "פריכיות", "בייגלה", "גרעינים", "בוטנים", "שקדים", "תמרים", "צימוקים", "וודקה", "ויסקי", "ליקר", "סודה", "קולה", "נקטר",
  "תרכיז", "פלפל", "מלח", "פפריקה", "כמון", "חרדל", "חומץ", "סלט", "מטבוחה", "כבד", "קבב", "פסטרמה", "סלמי", "הודו", "פרגיות", "כנפיים",
  "אבקת", "נוזל", "ג'ל", "תרסיס", "ספוג", "מטליות", "צלחות", "כוסות", "רדיד", "ניילון", "נרות", "גפרורים", "מזון", "חול", "ויטמין",
];

export const BRANDS = [
  "תנובה", "שטראוס", "אסם", "עלית", "תלמה", "יטבתה", "טרה", "פריגת", "ויסוצקי", "סוגת", "זוגלובק", "סנו", "נביעות", "טבעול", "אנג'ל",
  "ברמן", "וילי פוד", "שופרסל", "רמי לוי", "פרי הגליל", "יכין", "מילוטל", "נסטלה", "קוקה קולה", "פפסי", "היינץ", "בארילה", "מאמא עוף",
  "עוף טוב", "טירת צבי", "יחיעם", "סנפרוסט", "מעדנות", "קרליין", "ד\"ר פישר", "פנטן", "קולגייט", "האגיס", "פמפרס", "לילי", "סנו סופט",
  "גד", "משק צוריאל", "פיראוס", "אלפרו", "בייגל בייגל", "כרמית", "מגדלי", "ג'ויה", "נטורפוד", "סבבה", "ג'אן", "אחלה", "צבר", "שמיר",
  "הנסיך", "הר ברכה", "יד מרדכי", "מיה", "לנדוור",
];

export const MODIFIERS = [
  "דל שומן", "ללא סוכר", "מהדרין", "אורגני", "קלאסי", "מלא", "לבן", "אדום", "ירוק", "צהוב", "בטעם תות", "שחור", "מריר", "בטעם וניל",
  "ללא גלוטן", "חלב", "במילוי", "בטעם שוקולד", "עם", "טבעי", "מועשר", "בטעם לימון", "משפחתי", "מארז", "חסכון", "פרימיום", "קלוי", "מלוח",
  "חריף", "מתוק", "מעושן", "טרי", "קפוא", "פרוס", "מגורד", "טחון", "יבש", "לתינוק", "לכלים", "לכביסה", "לשיער", "לגוף", "לכלב", "לחתול",
  "בשמן", "במים", "ברוטב", "בשמנת", "עדין", "קריספי", "פריך", "בצל", "שום", "עגבניות", "תפוחים", "תפוזים", "ענבים", "אפרסק", "דובדבן",
  "פטל", "נענע", "קינמון", "דבש", "אגוזים", "שקדים", "קוקוס", "בננה", "מנגו", "אננס", "חמוציות", "שיבולת", "כוסמין", "שיפון", "דגנים",
];

const UNITS = ["גרם", "גרם", "גרם", "מ\"ל", "ליטר", "ק\"ג", "יח'"];
const SIZES: Record<string, number[]> = { "גרם": [25, 50, 80, 100, 150, 200, 250, 400, 500, 750], "מ\"ל": [200, 250, 330, 500, 750], "ליטר": [1, 1.5, 2], "ק\"ג": [1, 2, 3], "יח'": [4, 6, 10, 12, 24, 48] };
const LETTERS = "אבגדהוזחטיכלמנסעפצקרשת";
const FINALS: Record<string, string> = { "כ": "ך", "מ": "ם", "נ": "ן", "פ": "ף", "צ": "ץ" };

/** A pronounceable-looking Hebrew pseudo-word of 3–7 letters (final form at the end). */
function pseudoWord(rand: () => number): string {
  const length = 3 + Math.floor(rand() * 5);
  let w = "";
  for (let i = 0; i < length; i++) w += LETTERS[Math.floor(rand() * LETTERS.length)];
  const last = w[w.length - 1]!;
  return FINALS[last] ? w.slice(0, -1) + FINALS[last] : w;
}

/** Draws ranks 0..n-1 with probability ∝ 1/(rank+1)^s (inverse CDF over a precomputed table). */
function zipf(n: number, s: number, rand: () => number): () => number {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) cdf[i] = sum += 1 / Math.pow(i + 1, s);
  return () => {
    const x = rand() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cdf[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** The vocabulary: real words first (most frequent), pseudo-words after them. */
export function vocabulary(seed = 7) {
  const rand = seeded(seed);
  const heads = [...HEADS, ...Array.from({ length: 2000 - HEADS.length }, () => pseudoWord(rand))];
  const brands = [...BRANDS, ...Array.from({ length: 3000 - BRANDS.length }, () => `${pseudoWord(rand)} ${rand() < 0.3 ? pseudoWord(rand) : ""}`.trim())];
  const tail = Array.from({ length: 30000 }, () => pseudoWord(rand));
  return { heads, brands, tail };
}

/**
 * `count` products: head noun (Zipf 0.8 over 2,000), 0–2 modifiers (0.7 on average, Zipf 1.0 over 75;
 * a "בטעם …" flavour in ~6 % of names), the brand in the
 * name 60 % of the time (Zipf 0.8 over 3,000; always the manufacturer), a long-tail pseudo-word
 * half of the time, a fat % sometimes, and a package size.
 *
 * @example syntheticCatalogue(1000)[0] // → { barcode: "7290000000015", name: "…", manufacturer: "…" }
 */
export function syntheticCatalogue(count: number, seed = 7): CorpusProduct[] {
  const rand = seeded(seed * 31 + 1);
  const { heads, brands, tail } = vocabulary(seed);
  const head = zipf(heads.length, 0.8, rand);
  const brand = zipf(brands.length, 0.8, rand);
  const modifier = zipf(MODIFIERS.length, 1.0, rand);
  const out: CorpusProduct[] = [];
  for (let i = 0; i < count; i++) {
    const b = brands[brand()]!;
    const words = [heads[head()]!];
    const mods = rand() < 0.45 ? 0 : rand() < 0.75 ? 1 : 2;
    for (let m = 0; m < mods; m++) words.push(MODIFIERS[modifier()]!);
    if (rand() < 0.5) words.push(tail[Math.floor(rand() * tail.length)]!);
    if (rand() < 0.6) words.push(b);
    if (rand() < 0.15) words.push(`${[1, 3, 5, 9, 15, 28][Math.floor(rand() * 6)]}%`);
    const unit = UNITS[Math.floor(rand() * UNITS.length)]!;
    const sizes = SIZES[unit]!;
    words.push(`${sizes[Math.floor(rand() * sizes.length)]} ${unit}`);
    out.push({ barcode: String(7290000000000 + i * 7), name: words.join(" "), manufacturer: b });
  }
  return out;
}
