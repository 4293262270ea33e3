/** GS1 check digits for the demo's barcodes. */

/**
 * The check digit of a GTIN body (all digits but the last), any length up to 17.
 * Weights 3,1,3,1… from the rightmost body digit.
 * @example gtinCheckDigit("729000006603") // 0 → 7290000066030
 */
export function gtinCheckDigit(body: string): number {
  if (!/^\d{1,17}$/.test(body)) throw new Error(`not a GTIN body: ${body}`);
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    const digit = body.charCodeAt(body.length - 1 - i) - 48;
    sum += digit * (i % 2 === 0 ? 3 : 1);
  }
  return (10 - (sum % 10)) % 10;
}

/** True for an 8-, 12-, 13- or 14-digit code whose last digit is its check digit. */
export function isValidGtin(code: string): boolean {
  if (!/^(\d{8}|\d{12,14})$/.test(code)) return false;
  return gtinCheckDigit(code.slice(0, -1)) === Number(code.at(-1));
}

/**
 * A GTIN-13 from the Israeli prefix 729, a 4-digit company number and a 5-digit item number.
 * @example gtin13(1, 42) // "7290001000428"
 */
export function gtin13(company: number, item: number): string {
  if (company < 0 || company > 9999 || item < 0 || item > 99999) throw new Error("gtin13: number out of range");
  const body = `729${String(company).padStart(4, "0")}${String(item).padStart(5, "0")}`;
  return body + gtinCheckDigit(body);
}
