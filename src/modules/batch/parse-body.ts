import * as z from "zod";
import { validateBody } from "../../http/request/json-body.ts";
import { isProductId } from "../../identity/product-id.ts";
import { BatchBody, CHAIN_SLUG, MAX_BATCH_ITEMS } from "./model.ts";

type Item = BatchBody["items"][number];

const ITEMS_START = '{"items":[{"barcode":"';
const CHAIN_ID = '","chain_id":"';
const NEXT_ITEM = '"},{"barcode":"';
const ITEMS_END = '"}]';

/**
 * JSON.parse for a batch body: the same value, or the same error. A body in the compact shape
 * clients send (`JSON.stringify` of `{ items: [{ barcode, chain_id? }, …], … }`, items first, each
 * value one BatchItem accepts) has its items read by position, without JSON.parse making 100
 * objects and strings from the text: with the caches cold, as a busy server has them at each
 * request, that parse was the batch's largest piece of JavaScript (≈ 45 µs, against ≈ 15 µs
 * read here). Anything else — other spacing or order, escapes, values the items would refuse, a
 * repeated member — is JSON.parse's.
 */
export function parseBatchJson(text: string): unknown {
  return readBatchJson(text).value;
}

/**
 * parseBatchJson's value, and whether its items are the compact shape's (each `{ barcode }` or
 * `{ barcode, chain_id }` with values BatchItem accepts, as parseBatchBody's own check would
 * find them: it need not check them again).
 */
export function readBatchJson(text: string): { value: unknown; itemsChecked: boolean } {
  const compact = commonShape(text);
  return compact ? { value: compact, itemsChecked: true } : { value: JSON.parse(text), itemsChecked: false };
}

/** The body of parseBatchJson's compact shape, or undefined for any other text. */
function commonShape(text: string): { items: Item[] } | undefined {
  if (!text.startsWith(ITEMS_START)) return undefined;
  const items: Item[] = [];
  // Each value ends at the next quote: values with an escape (the only way to hold a quote) fail
  // the items' own predicates, as any value they refuse does, and are left to JSON.parse.
  for (let at = ITEMS_START.length; ; ) {
    let end = text.indexOf('"', at);
    if (end < 0) return undefined;
    const barcode = text.slice(at, end);
    if (!isProductId(barcode)) return undefined;
    let item: Item = { barcode };
    if (text.startsWith(CHAIN_ID, end)) {
      at = end + CHAIN_ID.length;
      end = text.indexOf('"', at);
      if (end < 0) return undefined;
      const chainId = text.slice(at, end);
      if (!CHAIN_SLUG.test(chainId)) return undefined;
      item = { barcode, chain_id: chainId };
    }
    items.push(item);
    if (text.startsWith(NEXT_ITEM, end)) at = end + NEXT_ITEM.length;
    else if (text.startsWith(ITEMS_END, end)) return withRest(items, text, end + ITEMS_END.length);
    else return undefined;
  }
}

/** `{ items, …the members after them }`: the text from `at` is `}` or `,` and at least one member, then `}`. */
function withRest(items: Item[], text: string, at: number): { items: Item[] } | undefined {
  if (at === text.length - 1 && text[at] === "}") return { items };
  if (text[at] !== ",") return undefined;
  let rest: unknown;
  try {
    rest = JSON.parse(`{${text.slice(at + 1)}`);
  } catch {
    return undefined;
  }
  // `,}` would parse here as `{}`, and a repeated `items` replaces the first one: JSON.parse's.
  if (typeof rest !== "object" || rest === null || Object.keys(rest).length === 0 || Object.hasOwn(rest, "items")) return undefined;
  return { items, ...rest };
}

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
 * validation time — are checked in their common shape without copies (not again when
 * `itemsChecked`: readBatchJson's compact items); a body with any other item goes through
 * BatchBody itself, so every refusal is zod's, with zod's message.
 */
export function parseBatchBody(value: unknown, itemsChecked = false): BatchBody {
  const items = (value as { items?: unknown } | null)?.items;
  if (Array.isArray(items) && (itemsChecked || items.every(plainItem))) {
    const envelope = BatchEnvelope.safeParse(value);
    if (envelope.success) return { ...envelope.data, items: items as BatchBody["items"] };
  }
  return validateBody(BatchBody, value);
}
