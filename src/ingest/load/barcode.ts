/**
 * Product identity: which item codes are shared GTINs (one product for every chain) and which
 * are chain-internal codes (scoped to their chain, never merged across chains).
 */
import { withoutLeadingZeros } from "../../identity/product-key.ts";

/**
 * An item code without its leading zeros (they are not significant); all zeros stay `"0"`.
 * @example barcodeKey("007290000066318") // "7290000066318"
 */
export function barcodeKey(code: string): string {
  const first = code.charCodeAt(0);
  // Fast path: most codes start with a non-zero digit and carry no blanks.
  if (first > 48 && first <= 57 && code.charCodeAt(code.length - 1) > 32) return code;
  return withoutLeadingZeros(code.trim());
}

/**
 * True when the code is a GTIN-8/12/13/14 with a correct GS1 check digit. Leading zeros do not
 * change the check digit, so `0007290000066318` is as valid as `7290000066318`.
 * @example isValidGtin("7290000066318") // true
 * @example isValidGtin("7290000066311") // false (check digit)
 * @example isValidGtin("1234")          // false (too short)
 */
export function isValidGtin(code: string): boolean {
  const key = barcodeKey(code);
  if (key.length < 8 || key.length > 14 || !/^\d+$/.test(key)) return false;
  let sum = 0;
  // Weights 3,1,3,… from the digit left of the check digit.
  for (let i = key.length - 2, weight = 3; i >= 0; i--, weight = 4 - weight) sum += (key.charCodeAt(i) - 48) * weight;
  return (10 - (sum % 10)) % 10 === key.charCodeAt(key.length - 1) - 48;
}

/**
 * GS1 restricted-circulation numbers: GTIN-13 with prefix 2 (in-store, weighed goods), GTIN-12
 * (UPC) with number system 2 or 4, GTIN-8 with prefix 2. Valid-looking, but each retailer
 * assigns them itself, so they are chain-internal.
 * @example isRestrictedCirculation("2000123000008") // true
 */
export function isRestrictedCirculation(code: string): boolean {
  const key = barcodeKey(code);
  if (key.length === 13 || key.length === 8) return key[0] === "2";
  if (key.length === 12) return key[0] === "2" || key[0] === "4";
  return false;
}

/** Where a product lives: scope 0 = shared GTIN, else the chain's id. */
export interface ProductIdentity {
  scope: number;
  key: string;
}

/**
 * The identity of a published item code: a shared GTIN unless the file marks it internal
 * (ItemType 0), its check digit is wrong, or it is a restricted-circulation number.
 * @example productIdentity("07290000066318", 1, 5) // { scope: 0, key: "7290000066318" }
 * @example productIdentity("4021", 0, 5)           // { scope: 5, key: "4021" }
 */
export function productIdentity(itemCode: string, itemType: number | null, chainId: number): ProductIdentity {
  const key = barcodeKey(itemCode);
  const shared = itemType !== 0 && isValidGtin(key) && !isRestrictedCirculation(key);
  return { scope: shared ? 0 : chainId, key };
}
