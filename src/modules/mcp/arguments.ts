import * as z from "zod";
import { CATEGORIES } from "../../search/categories.ts";
import { GENERIC_ID, PRODUCT_ID_RULE } from "../../identity/product-id.ts";

/**
 * Argument schemas the tools share. Each is the API parameter's rule, worded for an assistant
 * (English, with the Hebrew a user may type); what only the data can tell (an unknown chain or
 * city, a point outside Israel) is the API's to answer.
 */

/** A product identifier as the API takes it (src/identity/product-id.ts), as a pattern a JSON schema can carry. */
export const Barcode = z
  .string()
  .max(60)
  .regex(new RegExp(`^(?:\\d{1,20}|${GENERIC_ID.source.slice(1, -1)})$`), `must be a product id: ${PRODUCT_ID_RULE}`)
  .describe(
    "Product identifier (ברקוד) as returned by search_products: a barcode (digits, leading zeros not significant, e.g. `7290000066318`), " +
      "a chain's internal item code (pass the item's chain_id with it), or a generic product id for loose produce (`g-tomatoes`)",
  );

export const ChainId = z
  .string()
  .regex(/^[a-z0-9-]{1,40}$/, "must be a chain id: lowercase letters, digits and hyphens, e.g. `rami-levy`")
  .describe("Chain id (רשת) as returned by list_chains, e.g. `shufersal`, `rami-levy`");

export const City = z
  .string()
  .min(1)
  .max(60)
  .describe("City (עיר): the Hebrew name in any common spelling, its English name or its CBS code, e.g. `חיפה`, `Haifa`, `תל אביב`");

export const Point = z
  .object({
    lat: z.number().min(-90).max(90).describe("Latitude, e.g. 32.794"),
    lon: z.number().min(-180).max(180).describe("Longitude, e.g. 34.989"),
  })
  .strict()
  .describe("A point in Israel (the user's location / מיקום), e.g. { lat: 32.794, lon: 34.989 } in Haifa");

export const RadiusKm = z.number().min(0.1).max(50).describe("Radius around `near` in kilometres (רדיוס בק\"מ), 0.1–50, default 5");

export const Category = z
  .enum(CATEGORIES.map((c) => c.slug) as [string, ...string[]])
  .describe(`Product category (קטגוריה): ${CATEGORIES.map((c) => `${c.slug} (${c.name})`).join(", ")}`);

export const Cursor = z.string().min(1).max(2048).describe("`meta.next_cursor` of the previous call, for the next page");

/** `{ lat, lon }` → the API's `near=lat,lon`. */
export function nearParam(point: { lat: number; lon: number } | undefined): string | undefined {
  return point === undefined ? undefined : `${point.lat},${point.lon}`;
}

/** A shopping list as the basket tools take it: 1–100 items by barcode (with the chain of an internal code), each 1–99 of it. */
export const ShoppingList = z
  .array(
    z
      .object({
        barcode: Barcode,
        chain_id: ChainId.optional().describe("The chain of a chain-internal item code (the search result's chain_id)"),
        quantity: z.number().int().min(1).max(99).default(1).describe("How many (כמות), 1–99, default 1"),
      })
      .strict(),
  )
  .min(1)
  .max(100)
  .describe("The shopping list (רשימת קניות): 1–100 products by barcode");
