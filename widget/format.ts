import type { Lang } from "./types.ts";

const LOCALES: Record<Lang, string> = { he: "he-IL", en: "en-IL" };
const money = new Map<Lang, Intl.NumberFormat>();

/** "12.90" → "‏12.90 ₪" (he) or "₪12.90" (en). */
export function formatPrice(ils: string, lang: Lang): string {
  let format = money.get(lang);
  if (!format) {
    format = new Intl.NumberFormat(LOCALES[lang], { style: "currency", currency: "ILS" });
    money.set(lang, format);
  }
  return format.format(Number(ils));
}

/** An API decimal string in whole agorot, for exact comparisons. */
export function agorot(ils: string): number {
  return Math.round(Number(ils) * 100);
}

/** ISO 8601 → "22.11, 05:30" in Israel time; "" when absent or unreadable. */
export function formatUpdated(iso: string | null, lang: Lang): string {
  const time = iso ? Date.parse(iso) : NaN;
  if (isNaN(time)) return "";
  return new Intl.DateTimeFormat(LOCALES[lang], {
    timeZone: "Asia/Jerusalem",
    day: "2-digit",
    month: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).format(time);
}
