import * as z from "zod";

const Money = z.string().regex(/^\d+\.\d{2}$/);

/** One item's line in a basket answer (chain, store or plan): serialized by item-pricing.ts lineJson. */
export const BasketLine = z.object({
  barcode: z.string(),
  name: z.string(),
  quantity: z.number().int(),
  unit_price_ils: Money,
  line_total_ils: Money,
  promotion_id: z.string().nullable(),
  suspect: z.boolean().describe("The chain's (or store's) shelf price is most likely a data error (as `suspect` of /prices/)"),
  sold_by: z.enum(["kg", "unit"]).optional().describe("Generic products (loose produce): per kilogram (quantity in kg) or per unit"),
});
