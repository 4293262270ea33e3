import type { Database } from "bun:sqlite";
import { stmt } from "../db/statements.ts";

/**
 * Suspect prices: a price a chain published that is most likely a data error. Such a price is
 * served as published, flagged (`suspect`, `suspect_reason`), and never taken for the cheapest
 * without saying so (/prices/ lists suspect entries after the others; the basket's
 * `cheapest_store`, the widget's "cheapest" mark and alerts pass over them).
 *
 * - `placeholder`: 0.00 or 0.01, or a run of nines from 999.99 up (999.99, 9999.99, 99999.00 …) —
 *   values chains publish for "no price"; seen in real files (44 of 4,037 shelf prices in the
 *   sample files are 0.00–0.01).
 * - `far_below_median` / `far_above_median`: under a fifth or over five times the median of the
 *   other chains' prices of the product (each chain's chain price: its most common shelf price),
 *   judged only when at least two other chains sell it. In the sample files a chain's price lies
 *   within 0.83–1.22× of the other chains' median for 99.9 % of shared products; promotions
 *   rarely go below half. A fifth and five times leave a wide margin for real price differences
 *   (a pack sold under one barcode in two sizes) while catching a price entered in agorot, a
 *   misplaced decimal point (×10, ÷10) or a per-gram figure.
 */
export type SuspectReason = "placeholder" | "far_below_median" | "far_above_median";

export const SUSPECT_LOW_RATIO = 0.2;
export const SUSPECT_HIGH_RATIO = 5;

/**
 * Whether a price in agorot is a placeholder value.
 * @example isPlaceholderPrice(1) // true; isPlaceholderPrice(99999) // true; isPlaceholderPrice(990) // false
 */
export function isPlaceholderPrice(agorot: number): boolean {
  if (agorot <= 1) return true;
  if (agorot < 99_999) return false;
  const digits = String(agorot);
  // 999.99, 9999.99 …, and the same with whole shekels of nines (99999.00).
  return /^9+$/.test(digits) || /^9{3,}00$/.test(digits);
}

/** The median of a list of numbers (not empty); the mean of the two middle ones for an even count. */
function median(sorted: number[]): number {
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The reason a price is suspect, or null: `shelf` at chain `chainId`, against every chain's chain
 * price of the product (`chainPrices`: chain db id → agorot).
 * @example suspectReason(1, 3, new Map([[1, 990], [2, 1090]])) // "placeholder"
 */
export function suspectReason(shelf: number, chainId: number, chainPrices: ReadonlyMap<number, number>): SuspectReason | null {
  if (isPlaceholderPrice(shelf)) return "placeholder";
  const others: number[] = [];
  for (const [chain, price] of chainPrices) if (chain !== chainId && !isPlaceholderPrice(price)) others.push(price);
  if (others.length < 2) return null;
  const reference = median(others.sort((a, b) => a - b));
  if (shelf < reference * SUSPECT_LOW_RATIO) return "far_below_median";
  if (shelf > reference * SUSPECT_HIGH_RATIO) return "far_above_median";
  return null;
}

/**
 * Every chain's chain price of a product (chain_products.price_mode): the reference suspectReason
 * judges a price against.
 */
export function chainPricesOf(db: Database, productId: number): Map<number, number> {
  const rows = stmt(db, "SELECT chain_id, price_mode FROM chain_products WHERE product_id = ?").values(productId) as [number, number][];
  return new Map(rows);
}
