import * as z from "zod";
import { withoutLeadingZeros } from "./product-key.ts";

export { withoutLeadingZeros };

/**
 * The identifiers a client passes wherever a product is named (prices, history, basket, widget):
 *
 * - a barcode or chain-internal item code: 1–20 digits, leading zeros not significant;
 * - a generic product (loose produce grouped across chains): `g-` and a lowercase slug from
 *   data/produce-groups.json, e.g. `g-tomatoes`. It holds a letter, so it can never equal a GTIN
 *   or a chain's item code (digits only), and needs no escaping in a path or a query string.
 */
export const GENERIC_ID = /^g-[a-z0-9]+(?:-[a-z0-9]+)*$/;
const ITEM_CODE = /^\d{1,20}$/;

/** True for a generic product identifier (`g-tomatoes`). */
export function isGenericId(id: string): boolean {
  return id.length <= 60 && GENERIC_ID.test(id);
}

/** True for anything resolveProduct accepts: digits, or a generic product identifier. */
export function isProductId(id: string): boolean {
  return ITEM_CODE.test(id) || isGenericId(id);
}

/** `"007290000066318"` → `"7290000066318"`; generic identifiers are kept as they are. */
export function productKey(id: string): string {
  return isGenericId(id) ? id : withoutLeadingZeros(id);
}

export const PRODUCT_ID_RULE = "1–20 digits (a barcode or chain-internal item code) or a generic product id (`g-tomatoes`)";

/** The zod type of a product identifier in a query, path or body. */
export const ProductId = z
  .string()
  .max(60)
  .refine(isProductId, `must be a product id: ${PRODUCT_ID_RULE}`)
  .describe(
    "Product identifier: a barcode (GTIN-8/12/13/14), a chain-internal item code (pass the item's `chain_id` with it), or a generic product id (`g-…`) " +
      "grouping loose produce across chains; leading zeros are not significant. Take both from a search or catalog item.",
  );
