/**
 * ILS decimal text to integer agorot, exactly (no float rounding): `5.90` → 590, `3.6` → 360,
 * `65` → 6500, `0.0295` → 3 (half up on the third decimal). Null when not a number.
 *
 * `from`/`to` read a part of a longer text in place.
 *
 * @example toAgorot("5.90") // 590
 */
export function toAgorot(text: string | null | undefined, from = 0, to = text?.length ?? 0): number | null {
  if (text == null) return null;
  let i = from;
  let end = to;
  while (i < end && text.charCodeAt(i) <= 32) i++;
  while (end > i && text.charCodeAt(end - 1) <= 32) end--;
  if (i === end) return null;
  let negative = false;
  const sign = text.charCodeAt(i);
  if (sign === 45 /* - */ || sign === 43 /* + */) {
    negative = sign === 45;
    i++;
  }
  let whole = 0;
  let digits = 0;
  let c = 0;
  for (; i < end; i++) {
    c = text.charCodeAt(i);
    if (c < 48 || c > 57) break;
    whole = whole * 10 + (c - 48);
    digits++;
  }
  let agorot = whole * 100;
  if (i < end) {
    if (c !== 46 /* . */ && c !== 44 /* , */) return null;
    i++;
    let place = 0;
    for (; i < end; i++, place++) {
      c = text.charCodeAt(i);
      if (c < 48 || c > 57) return null;
      digits++;
      if (place === 0) agorot += (c - 48) * 10;
      else if (place === 1) agorot += c - 48;
      else if (place === 2 && c >= 53) agorot += 1; // half up on the third decimal
    }
  }
  if (digits === 0 || !Number.isSafeInteger(agorot)) return null;
  return negative ? -agorot : agorot;
}

/**
 * {@link toAgorot} of bytes `from`–`to` (a price left in place on a document's bytes), the same
 * rules char for byte; kept apart so that neither loop reads through a type test.
 * @example agorotOfBytes(Buffer.from("<P>5.90</P>"), 3, 7) // 590
 */
export function agorotOfBytes(bytes: Uint8Array, from: number, to: number): number | null {
  let i = from;
  let end = to;
  while (i < end && bytes[i]! <= 32) i++;
  while (end > i && bytes[end - 1]! <= 32) end--;
  if (i === end) return null;
  let negative = false;
  const sign = bytes[i]!;
  if (sign === 45 /* - */ || sign === 43 /* + */) {
    negative = sign === 45;
    i++;
  }
  let whole = 0;
  let digits = 0;
  let c = 0;
  for (; i < end; i++) {
    c = bytes[i]!;
    if (c < 48 || c > 57) break;
    whole = whole * 10 + (c - 48);
    digits++;
  }
  let agorot = whole * 100;
  if (i < end) {
    if (c !== 46 /* . */ && c !== 44 /* , */) return null;
    i++;
    let place = 0;
    for (; i < end; i++, place++) {
      c = bytes[i]!;
      if (c < 48 || c > 57) return null;
      digits++;
      if (place === 0) agorot += (c - 48) * 10;
      else if (place === 1) agorot += c - 48;
      else if (place === 2 && c >= 53) agorot += 1; // half up on the third decimal
    }
  }
  if (digits === 0 || !Number.isSafeInteger(agorot)) return null;
  return negative ? -agorot : agorot;
}
