/**
 * ILS decimal text to integer agorot, exactly (no float rounding): `5.90` → 590, `3.6` → 360,
 * `65` → 6500, `0.0295` → 3 (half up on the third decimal). Null when not a number.
 *
 * @example toAgorot("5.90") // 590
 */
export function toAgorot(text: string | null | undefined): number | null {
  if (text == null) return null;
  const s = text.trim();
  if (!s) return null;
  const m = /^([+-]?)(\d*)(?:[.,](\d*))?$/.exec(s);
  if (!m || (!m[2] && !m[3])) return null;
  const whole = m[2] ? Number(m[2]) : 0;
  const frac = m[3] ?? "";
  let agorot = whole * 100 + Number((frac + "00").slice(0, 2));
  if (frac.length > 2 && frac.charCodeAt(2) >= 53 /* '5' */) agorot += 1;
  if (!Number.isSafeInteger(agorot)) return null;
  return m[1] === "-" ? -agorot : agorot;
}
