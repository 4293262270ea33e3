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
