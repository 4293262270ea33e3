/**
 * The domain rules of prices, as pure functions on integer agorot (see CONTRACT.md):
 * the chain price is the most common shelf price among its stores (tie → lower); the effective
 * price applies the best active promotion open to all customers that applies to one unit.
 */

/** The fields of a promotion (with per-item overrides already merged) that price a unit. */
export interface UnitPromotion {
  promotionId: string;
  minQty: number | null;
  maxQty: number | null;
  /** Agorot for minQty units together. */
  discountedPrice: number | null;
  /** Fraction 0..1. */
  discountRate: number | null;
  isClubOnly: boolean;
  isCoupon: boolean;
  minPurchaseAmount: number | null;
}

/**
 * Most common value; ties go to the lower value. Empty input → null.
 * @example mode([590, 590, 650, 650, 500]) // 590
 */
export function mode(values: number[]): number | null {
  if (values.length === 0) return null;
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return modeOfCounts(counts);
}

/** The most common value of a value → count map (not empty); ties go to the lower value (as `mode`). */
export function modeOfCounts(counts: Map<number, number>): number {
  let best = 0;
  let bestCount = 0;
  for (const [v, c] of counts) {
    if (c > bestCount || (c === bestCount && v < best)) {
      best = v;
      bestCount = c;
    }
  }
  return best;
}

/** True when the promotion is open to every customer (no club, no coupon, no basket minimum). */
export function isOpenToAll(p: UnitPromotion): boolean {
  return !p.isClubOnly && !p.isCoupon && !(p.minPurchaseAmount && p.minPurchaseAmount > 0);
}

/**
 * The price of one unit under a promotion that applies to a single unit, or null when the
 * promotion needs more than one unit (multi-buy), is not open to all, or does not lower the price.
 * @example unitPromotionPrice(1290, { minQty: 1, discountedPrice: 990, ... }) // 990
 */
export function unitPromotionPrice(shelf: number, p: UnitPromotion): number | null {
  if (!isOpenToAll(p)) return null;
  if (p.minQty !== null && p.minQty > 1) return null;
  let price: number | null = null;
  if (p.discountedPrice !== null && p.discountedPrice > 0) price = p.discountedPrice;
  else if (p.discountRate !== null && p.discountRate > 0 && p.discountRate <= 1) price = Math.round(shelf * (1 - p.discountRate));
  if (price === null || price >= shelf) return null;
  return price;
}

/** True when a club member gets the promotion without a coupon or a basket minimum (club-only or open to all). */
export function isOpenToMembers(p: UnitPromotion): boolean {
  return !p.isCoupon && !(p.minPurchaseAmount && p.minPurchaseAmount > 0);
}

/**
 * The club price of one unit: the best price a club-only promotion gives (coupons and basket
 * minimums excluded), when it is lower than the price open to all (`effective`); else null.
 * @example clubPrice(1290, 1290, [{ isClubOnly: true, minQty: 1, discountedPrice: 990, ... }]) // { price: 990, promotionId: "…" }
 */
export function clubPrice(shelf: number, effective: number, promotions: UnitPromotion[]): { price: number; promotionId: string } | null {
  let best: { price: number; promotionId: string } | null = null;
  for (const p of promotions) {
    if (!p.isClubOnly || !isOpenToMembers(p)) continue;
    const price = unitPromotionPrice(shelf, { ...p, isClubOnly: false });
    if (price !== null && price < effective && (best === null || price < best.price)) best = { price, promotionId: p.promotionId };
  }
  return best;
}

/** Shelf price after the best single-unit promotion, and which promotion gave it. */
export function effectivePrice(shelf: number, promotions: UnitPromotion[]): { price: number; promotionId: string | null } {
  let best = shelf;
  let promotionId: string | null = null;
  for (const p of promotions) {
    const price = unitPromotionPrice(shelf, p);
    if (price !== null && price < best) {
      best = price;
      promotionId = p.promotionId;
    }
  }
  return { price: best, promotionId };
}

/**
 * Total for `quantity` units with promotions open to all customers (with `members`, club-only ones
 * too), multi-buy included:
 * "3 for 10" applies to each full group of minQty (up to maxQty units), the rest at the
 * shelf price; a rate applies to the units of the full groups. The cheapest option wins.
 * @example lineTotal(500, 7, [{ minQty: 3, discountedPrice: 1000, ... }]) // 2 × 1000 + 500 = 2500
 */
export function lineTotal(shelf: number, quantity: number, promotions: UnitPromotion[], members = false): { total: number; promotionId: string | null } {
  let best = shelf * quantity;
  let promotionId: string | null = null;
  for (const p of promotions) {
    // `members`: a club member's total — club-only promotions count too (never coupons or basket minimums).
    if (!(members ? isOpenToMembers(p) : isOpenToAll(p))) continue;
    const minQty = Math.max(1, Math.round(p.minQty ?? 1));
    if (quantity < minQty) continue;
    const capped = p.maxQty !== null && p.maxQty > 0 ? Math.min(quantity, Math.floor(p.maxQty)) : quantity;
    let total: number | null = null;
    if (p.discountedPrice !== null && p.discountedPrice > 0) {
      const groups = Math.floor(capped / minQty);
      if (groups === 0) continue;
      total = groups * p.discountedPrice + (quantity - groups * minQty) * shelf;
    } else if (p.discountRate !== null && p.discountRate > 0 && p.discountRate <= 1) {
      const qualifying = Math.floor(capped / minQty) * minQty;
      if (qualifying === 0) continue;
      total = Math.round(qualifying * shelf * (1 - p.discountRate)) + (quantity - qualifying) * shelf;
    }
    if (total !== null && total < best) {
      best = total;
      promotionId = p.promotionId;
    }
  }
  return { total: best, promotionId };
}

/** Israel's VAT: 18 % from 2025-01-01, 17 % before; Eilat is exempt. */
export function vatRate(date: string, inEilat: boolean): number {
  if (inEilat) return 0;
  return date < "2025-01-01" ? 0.17 : 0.18;
}

export type Measure = "100g" | "100ml" | "unit";

/**
 * Price per 100 g, per 100 ml or per unit from the normalised package size; null when unknown.
 * @example pricePerMeasure(1290, 500, "g") // { agorot: 258, measure: "100g" }
 */
export function pricePerMeasure(agorot: number, sizeAmount: number | null, sizeUnit: string | null): { agorot: number; measure: Measure } | null {
  if (sizeAmount === null || !(sizeAmount > 0) || !sizeUnit) return null;
  if (sizeUnit === "g") return { agorot: Math.round((agorot * 100) / sizeAmount), measure: "100g" };
  if (sizeUnit === "ml") return { agorot: Math.round((agorot * 100) / sizeAmount), measure: "100ml" };
  if (sizeUnit === "unit") return { agorot: Math.round(agorot / sizeAmount), measure: "unit" };
  return null;
}
