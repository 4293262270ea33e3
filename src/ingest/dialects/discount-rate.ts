/**
 * `DiscountRate` as a fraction 0..1. The files mix scales, so the number decides:
 * - `0 < r ≤ 1`: already a fraction (`0.25`);
 * - `1 < r ≤ 100`: percent (`25` → 0.25);
 * - `100 < r ≤ 10000`: hundredths of a percent (`2500` → 0.25, `10000` → 1, Rami Levy);
 * - 0, negatives, larger values and non-numbers: null (no rate given).
 *
 * @example discountRate("10000") // 1
 * @example discountRate("15")    // 0.15
 */
export function discountRate(text: string | null | undefined): number | null {
  if (text == null) return null;
  const r = Number(text.trim().replace(",", "."));
  if (!text.trim() || !Number.isFinite(r) || r <= 0) return null;
  if (r <= 1) return r;
  if (r <= 100) return round(r / 100);
  if (r <= 10000) return round(r / 10000);
  return null;
}

const round = (n: number) => Math.round(n * 1e6) / 1e6;
