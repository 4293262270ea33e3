import type { Lang } from "./types.ts";

/** The widget's words in Hebrew and English. */
export interface Strings {
  loading: string;
  notFound: string;
  empty: string;
  key: string;
  error: string;
  chain: string;
  price: string;
  stores: string;
  cheapest: string;
  promo: string;
  regular: string;
  low30: string;
  perKg: string;
  suspect: string;
  updated: string;
  disclaimer: string;
  more: (n: number) => string;
  docs: string;
}

export const STRINGS: Record<Lang, Strings> = {
  he: {
    loading: "טוען מחירים…",
    notFound: "המוצר לא נמצא ברשתות.",
    empty: "אין כרגע מחירים למוצר זה.",
    key: "מפתח הווידג׳ט אינו תקין או אינו מורשה באתר זה.",
    error: "לא ניתן לטעון מחירים כרגע.",
    chain: "רשת",
    price: "מחיר",
    stores: "סניפים",
    cheapest: "הזול ביותר",
    promo: "מבצע",
    regular: "מחיר רגיל:",
    low30: "הנמוך ב-30 יום:",
    perKg: "לק״ג",
    suspect: "ייתכן שגוי",
    updated: "עודכן",
    disclaimer: "המחירים כפי שפרסמו הרשתות; אין בכך אישור למלאי.",
    more: (n) => (n === 1 ? "ועוד רשת אחת" : `ועוד ${n} רשתות`),
    docs: "על ה-API",
  },
  en: {
    loading: "Loading prices…",
    notFound: "No chain sells this product.",
    empty: "No prices for this product right now.",
    key: "The widget key is invalid or not allowed on this site.",
    error: "Prices are unavailable right now.",
    chain: "Chain",
    price: "Price",
    stores: "Stores",
    cheapest: "Cheapest",
    promo: "Sale",
    regular: "Regular price:",
    low30: "30-day low:",
    perKg: "per kg",
    suspect: "may be wrong",
    updated: "Updated",
    disclaimer: "Prices as published by the chains; not a stock guarantee.",
    more: (n) => (n === 1 ? "and 1 more chain" : `and ${n} more chains`),
    docs: "About the API",
  },
};
