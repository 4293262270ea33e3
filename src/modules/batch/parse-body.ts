import * as z from "zod";
import { validateBody } from "../../http/request/json-body.ts";
import { isProductId } from "../../identity/product-id.ts";
import { BatchBody, CHAIN_SLUG, MAX_BATCH_ITEMS } from "./model.ts";

/**
 * The batch body with its items taken as sent, 1–100 of them (zod still checks everything else:
 * the filters, their defaults and transforms, unknown members); any refusal is BatchBody's to word.
 */
const BatchEnvelope = BatchBody.extend({
  items: z.custom<unknown[]>((items) => Array.isArray(items) && items.length >= 1 && items.length <= MAX_BATCH_ITEMS),
});

/**
 * Whether an item has the common shape — `{ barcode }` or `{ barcode, chain_id }`, the values
 * BatchItem accepts (the same predicates: isProductId, CHAIN_SLUG) and nothing else — so zod's
 * parse would return it unchanged. Anything else is left to zod, for its answer and its error.
 */
function plainItem(item: unknown): boolean {
  if (typeof item !== "object" || item === null || Array.isArray(item)) return false;
  for (const key in item) if (key !== "barcode" && key !== "chain_id") return false;
  const { barcode, chain_id: chainId } = item as { barcode?: unknown; chain_id?: unknown };
  return typeof barcode === "string" && isProductId(barcode) && (chainId === undefined || (typeof chainId === "string" && CHAIN_SLUG.test(chainId)));
}

/**
 * A parsed JSON body as BatchBody, or 400 `invalid_parameter` naming the first problem
 * (validateBody). The items — up to 100 objects zod would copy one by one, most of a batch's
 * validation time — are checked in their common shape without copies; a body with any other
 * item goes through BatchBody itself, so every refusal is zod's, with zod's message.
 */
export function parseBatchBody(value: unknown): BatchBody {
  const items = (value as { items?: unknown } | null)?.items;
  if (Array.isArray(items) && items.every(plainItem)) {
    const envelope = BatchEnvelope.safeParse(value);
    if (envelope.success) return { ...envelope.data, items: items as BatchBody["items"] };
  }
  return validateBody(BatchBody, value);
}
