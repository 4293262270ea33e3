import type { UnitPromotion } from "./rules.ts";

/**
 * A promotion's terms as the read queries return them (per-item overrides already merged):
 * snake_case columns, agorot, 0/1 flags. The queries add what they key their rows by.
 */
export interface PromotionTermsRow {
  chain_slug: string;
  promotion_code: string;
  starts_at: string | null;
  ends_at: string | null;
  min_qty: number | null;
  max_qty: number | null;
  discounted_price: number | null;
  discount_rate: number | null;
  is_club_only: number;
  is_coupon: number;
  min_purchase_amount: number | null;
}

/** The public promotion id: `<chain slug>:<published promotion id>`. */
export function publicPromotionId(chainSlug: string, promotionCode: string): string {
  return `${chainSlug}:${promotionCode}`;
}

/** The terms that price a unit: a row's, whatever else the query read. */
export type UnitTerms = Pick<PromotionTermsRow, "min_qty" | "max_qty" | "discounted_price" | "discount_rate" | "is_club_only" | "is_coupon" | "min_purchase_amount">;

/**
 * The one mapping from a promotion row to the promotion the pricing rules take (rules.ts).
 * @example unitPromotion(row, publicPromotionId(row.chain_slug, row.promotion_code))
 */
export function unitPromotion(r: UnitTerms, promotionId: string): UnitPromotion {
  return {
    promotionId,
    minQty: r.min_qty,
    maxQty: r.max_qty,
    discountedPrice: r.discounted_price,
    discountRate: r.discount_rate,
    isClubOnly: r.is_club_only === 1,
    isCoupon: r.is_coupon === 1,
    minPurchaseAmount: r.min_purchase_amount,
  };
}
