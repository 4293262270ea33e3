/**
 * How UTF-8-like a byte buffer is, for the decoder's fallback when strict UTF-8 decoding fails:
 * a file cut inside a Hebrew letter, or one stray byte in a UTF-8 file, must not send the whole
 * file to windows-1255 (every name would become mojibake); real windows-1255 text has almost no
 * well-formed multi-byte sequences (its letters E0–FA are followed by letters, not 80–BF).
 */

/** Length of the UTF-8 sequence a lead byte starts: 1 for ASCII, 0 for a byte that cannot lead. */
function sequenceLength(b: number): number {
  if (b < 0x80) return 1;
  if (b >= 0xc2 && b <= 0xdf) return 2;
  if (b >= 0xe0 && b <= 0xef) return 3;
  if (b >= 0xf0 && b <= 0xf4) return 4;
  return 0;
}

/**
 * Bytes at the end that start a UTF-8 sequence the buffer cuts short (0–3).
 * @example incompleteUtf8Tail(new Uint8Array([0x3c, 0xd7])) // 1 (a Hebrew letter's first byte)
 */
export function incompleteUtf8Tail(bytes: Uint8Array): number {
  const n = bytes.length;
  for (let back = 1; back <= Math.min(3, n); back++) {
    const b = bytes[n - back]!;
    if ((b & 0xc0) === 0x80) continue;
    const len = sequenceLength(b);
    return len > back ? back : 0;
  }
  return 0;
}

/**
 * Counts well-formed multi-byte UTF-8 sequences and bytes that belong to none (a heuristic:
 * overlong forms and surrogates are not told apart).
 * @example utf8Shape(new TextEncoder().encode("חלב")) // { valid: 3, invalid: 0 }
 * @example utf8Shape(new Uint8Array([0xe7, 0xec, 0xe1])) // { valid: 0, invalid: 3 } ("חלב" in windows-1255)
 */
export function utf8Shape(bytes: Uint8Array): { valid: number; invalid: number } {
  let valid = 0;
  let invalid = 0;
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    const len = sequenceLength(b);
    let ok = len > 1 && i + len <= n;
    for (let k = 1; ok && k < len; k++) ok = (bytes[i + k]! & 0xc0) === 0x80;
    if (ok) {
      valid++;
      i += len;
    } else {
      invalid++;
      i++;
    }
  }
  return { valid, invalid };
}

/** Well-formed sequences needed per stray byte to read a buffer as (damaged) UTF-8. */
const VALID_PER_INVALID = 8;

/**
 * True when bytes that fail strict UTF-8 decoding are still UTF-8 text with a few damaged bytes.
 * @example looksLikeDamagedUtf8(bytesWithOneStrayByte) // true
 */
export function looksLikeDamagedUtf8(bytes: Uint8Array): boolean {
  const { valid, invalid } = utf8Shape(bytes);
  return valid > 0 && valid >= invalid * VALID_PER_INVALID;
}
