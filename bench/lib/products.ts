import { hash32, pick, unit } from "./rng.ts";

/** A synthetic product of the national catalogue; index 0 is the most popular. */
export interface SyntheticProduct {
  barcode: string;
  name: string;
  manufacturer: string;
  unitQty: string;
  sizeAmount: number;
  sizeUnit: "g" | "ml" | "unit";
  /** A category slug of data/categories.json, as the importer's classifier assigns them. */
  category: string;
  /** Typical shelf price in agorot before chain and store variation. */
  basePrice: number;
}

const KINDS: { words: string[]; category: string; unit: "g" | "ml" | "unit"; sizes: number[]; price: number }[] = [
  { words: ["חלב", "משקה חלב", "חלב עמיד"], category: "dairy", unit: "ml", sizes: [1000, 2000, 500], price: 700 },
  { words: ["גבינה לבנה", "גבינה צהובה", "קוטג'", "יוגורט", "מעדן", "שמנת"], category: "dairy", unit: "g", sizes: [200, 250, 500, 150], price: 650 },
  { words: ["לחם", "לחמניות", "פיתות", "חלה"], category: "bakery", unit: "g", sizes: [500, 750, 400], price: 900 },
  { words: ["במבה", "ביסלי", "חטיף", "צ'יפס", "קרקר"], category: "snacks", unit: "g", sizes: [80, 100, 200, 60], price: 550 },
  { words: ["שוקולד", "עוגיות", "ופלים", "סוכריות"], category: "sweets", unit: "g", sizes: [100, 200, 400], price: 900 },
  { words: ["קפה", "תה", "נס קפה", "קפה טחון"], category: "coffee-tea", unit: "g", sizes: [100, 200, 250, 500], price: 2200 },
  { words: ["מיץ", "משקה קל", "מים מינרליים", "סודה"], category: "drinks", unit: "ml", sizes: [1500, 2000, 330, 1000], price: 800 },
  { words: ["פסטה", "אורז", "קמח", "סוכר", "פתיתים", "קוסקוס"], category: "dry-goods", unit: "g", sizes: [500, 1000, 250], price: 850 },
  { words: ["שמן", "רוטב עגבניות", "טחינה", "חומוס", "קטשופ", "מיונז"], category: "spices-sauces", unit: "g", sizes: [400, 500, 750, 1000], price: 1300 },
  { words: ["שניצל", "נקניקיות", "עוף", "המבורגר", "קבב"], category: "meat", unit: "g", sizes: [400, 500, 700, 1000], price: 3200 },
  { words: ["אבקת כביסה", "מרכך כביסה", "נוזל כלים", "אקונומיקה", "מגבונים"], category: "cleaning", unit: "ml", sizes: [1000, 2000, 750, 4000], price: 2500 },
  { words: ["שמפו", "סבון", "משחת שיניים", "דאודורנט", "קרם ידיים"], category: "personal-care", unit: "ml", sizes: [200, 400, 750, 100], price: 1900 },
  { words: ["חיתולים", "מטרנה", "מחית תינוקות"], category: "baby", unit: "unit", sizes: [1, 24, 44, 62], price: 5500 },
  { words: ["נייר טואלט", "מגבות נייר", "שקיות אשפה", "רדיד אלומיניום"], category: "paper", unit: "unit", sizes: [1, 12, 24, 32], price: 2700 },
  { words: ["פיצה קפואה", "ירקות קפואים", "בורקס", "גלידה"], category: "frozen", unit: "g", sizes: [400, 800, 1000, 500], price: 2100 },
];

const BRANDS = ["תנובה", "שטראוס", "עלית", "אסם", "תלמה", "יטבתה", "טרה", "פריגת", "ויסוצקי", "סוגת", "זוגלובק", "מאמא עוף", "סנו", "נביעות",
  "טבעול", "אנג'ל", "ברמן", "וילי פוד", "שופרסל", "רמי לוי", "פרי הגליל", "יכין", "מילוטל", "נסטלה", "יוניליוור", "פרוקטר", "קימברלי", "הנקל"];
const DESCRIPTORS = ["", "", "קלאסי", "דל שומן", "מהדרין", "אורגני", "ללא גלוטן", "בטעם וניל", "בטעם תות", "מועשר", "משפחתי", "מארז חסכון", "3%", "9%", "פרימיום", "מלא"];

/** GTIN-13 check digit of a 12-digit string. */
export function gtinCheckDigit(twelve: string): number {
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(twelve[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10;
}

function sizeLabel(amount: number, unit: "g" | "ml" | "unit"): { label: string; word: string } {
  if (unit === "g") return amount >= 1000 ? { label: `${amount / 1000} ק"ג`, word: "גרם" } : { label: `${amount} גרם`, word: "גרם" };
  if (unit === "ml") return amount >= 1000 ? { label: `${amount / 1000} ליטר`, word: "מ\"ל" } : { label: `${amount} מ"ל`, word: "מ\"ל" };
  return { label: amount === 1 ? "יחידה" : `${amount} יחידות`, word: "יחידה" };
}

/**
 * The synthetic national catalogue: distinct GTIN-13 barcodes (729 prefix, valid check
 * digit), Hebrew names from category words, brands and descriptors, log-normal prices.
 */
export function syntheticProducts(count: number): SyntheticProduct[] {
  const out: SyntheticProduct[] = [];
  const seen = new Set<string>();
  for (let i = 0; out.length < count; i++) {
    const twelve = "729" + String(hash32(i, 17) % 1_000_000_000).padStart(9, "0");
    const barcode = twelve + gtinCheckDigit(twelve);
    if (seen.has(barcode)) continue;
    seen.add(barcode);
    const kind = pick(KINDS, unit(i, 1));
    const brand = pick(BRANDS, unit(i, 2));
    const size = pick(kind.sizes, unit(i, 3));
    const descriptor = pick(DESCRIPTORS, unit(i, 4));
    const { label, word } = sizeLabel(size, kind.unit);
    const name = [pick(kind.words, unit(i, 5)), brand, descriptor, label].filter(Boolean).join(" ");
    // Log-normal around the kind's typical price (σ ≈ 0.45), at least 1.90.
    const u1 = Math.max(1e-9, unit(i, 6));
    const u2 = unit(i, 7);
    const normal = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    const basePrice = Math.max(190, Math.round(kind.price * Math.exp(0.45 * normal)));
    out.push({ barcode, name, manufacturer: brand, unitQty: word, sizeAmount: size, sizeUnit: kind.unit, category: kind.category, basePrice });
  }
  return out;
}
