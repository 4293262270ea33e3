/** Shelf-price arithmetic of the demo, in agorot. */

/** How a chain (or product) ends its prices: 12.90, 12.50 or 13 (Bina chains often write "13"). */
export type PriceEnding = "90" | "50" | "00";

/**
 * Rounds a raw price to a plausible shelf price: most end in .90, cheap items go by 10 agorot.
 * @example roundShelf(1234, "90") // 1190
 */
export function roundShelf(agorot: number, ending: PriceEnding = "90"): number {
  if (agorot < 300) return Math.max(50, Math.round(agorot / 10) * 10);
  if (ending === "50") return Math.max(350, Math.round(agorot / 50) * 50);
  if (ending === "00") return Math.max(300, Math.round(agorot / 100) * 100);
  return Math.max(390, Math.round((agorot + 10) / 100) * 100 - 10);
}

/** A price moved by `factor`, re-rounded, and guaranteed to move at least one step when factor ≠ 1. */
export function movePrice(agorot: number, factor: number, ending: PriceEnding): number {
  const next = roundShelf(agorot * factor, ending);
  if (factor > 1 && next <= agorot) return roundShelf(agorot + (agorot < 300 ? 10 : 100), ending);
  if (factor < 1 && next >= agorot) return Math.max(50, roundShelf(agorot - (agorot < 300 ? 10 : 100), ending));
  return next;
}

/** Israeli VAT at a date (the rate went from 17% to 18% on 2025-01-01). */
export function vatRate(isoDate: string): number {
  return isoDate >= "2025-01-01" ? 0.18 : 0.17;
}

/** "12.90"; with `trim`, Bina style "13" / "3.6". */
export function ils(agorot: number, trim = false): string {
  const text = `${Math.floor(agorot / 100)}.${String(agorot % 100).padStart(2, "0")}`;
  return trim ? text.replace(/\.?0+$/, "") : text;
}
