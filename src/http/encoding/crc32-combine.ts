/**
 * CRC-32 (the gzip/zlib polynomial) of two byte strings joined, from their own CRCs and the
 * second one's length — zlib's crc32_combine (crc32.c), which node:zlib does not expose. A batch
 * answer's gzip trailer is made from its cached parts' CRCs this way instead of reading the
 * half-megabyte of text again on every request.
 *
 * @example crc32Combine(crc32(a), crc32(b), b.length) === crc32(concat(a, b))
 */
export function crc32Combine(crc1: number, crc2: number, length2: number): number {
  return crc32CombineShifted(crc1, crc2, crc32Shift(length2));
}

/**
 * The part of crc32Combine that depends only on the second string's length (x^(8·length) modulo
 * the polynomial): made once for a cached part, it leaves one multiplication per combination.
 */
export function crc32Shift(length2: number): number {
  return powerOfXModP(length2, 3);
}

/** crc32Combine with the second string's crc32Shift made beforehand. */
export function crc32CombineShifted(crc1: number, crc2: number, shift2: number): number {
  return (multiplyModP(shift2, crc1 >>> 0) ^ (crc2 >>> 0)) >>> 0;
}

/** The polynomial, bit-reflected, as a signed 32-bit integer (the loop below stays in int32). */
const POLY = 0xedb88320 | 0;

/**
 * a × b modulo the CRC polynomial (bit-reflected, as zlib's multmodp): for each bit of `a` from
 * the top (x^0) while any is left, add `b` when it is set, then multiply `b` by x. Branch-free and
 * in signed 32-bit integers: zlib's branching loop, written with unsigned shifts, cost a batch of
 * 100 answers (200 combinations) tens of µs in mispredicted branches and numbers over 2^31.
 */
function multiplyModP(a: number, b: number): number {
  a |= 0;
  b |= 0;
  let p = 0;
  while (a !== 0) {
    p ^= b & (a >> 31);
    a <<= 1;
    b = ((b >> 1) & 0x7fffffff) ^ (POLY & -(b & 1));
  }
  return p >>> 0;
}

/** x^(2^k) modulo the polynomial, k = 0…31 (zlib's x2n_table). */
const X2N: number[] = (() => {
  const table: number[] = [];
  let p = 0x40000000; // x^1
  table.push(p);
  for (let n = 1; n < 32; n++) table.push((p = multiplyModP(p, p)));
  return table;
})();

/** x^(n·2^k) modulo the polynomial (zlib's x2nmodp): with k = 3, the shift of n bytes. */
function powerOfXModP(n: number, k: number): number {
  let p = 0x80000000; // x^0
  while (n > 0) {
    if (n & 1) p = multiplyModP(X2N[k & 31]!, p);
    n = Math.floor(n / 2);
    k++;
  }
  return p;
}
