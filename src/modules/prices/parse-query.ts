import type * as z from "zod";
import { parseQuery } from "../../http/request/query.ts";
import { queryParams } from "../../http/request/query-params.ts";
import { isProductId } from "../../identity/product-id.ts";
import { GRANULARITIES, PricesQuery } from "./model.ts";

type Granularity = (typeof GRANULARITIES)[number];

/**
 * GET /api/v1/prices/'s query as `parseQuery(request, PricesQuery)` reads it. The common shape —
 * `barcode` once with a value PricesQuery accepts (the same predicate, isProductId, which also
 * bounds its length), `granularity` at most once with one of its values, none of the filters — is
 * read without zod, whose object parse (every field of the schema, its checks, a copy) was a
 * tenth of a cached answer's time. Any other query goes through PricesQuery itself, so every
 * refusal is zod's, with zod's message. Parameters the schema does not know are ignored by both.
 */
export function parsePricesQuery(request: Request): z.output<typeof PricesQuery> {
  let barcode: string | undefined;
  let granularity: Granularity | undefined;
  for (const [name, value] of queryParams(request)) {
    if (name === "barcode") {
      if (barcode !== undefined || !isProductId(value)) return parseQuery(request, PricesQuery);
      barcode = value;
    } else if (name === "granularity") {
      if (granularity !== undefined || !isGranularity(value)) return parseQuery(request, PricesQuery);
      granularity = value;
    } else if (Object.hasOwn(PricesQuery.shape, name)) return parseQuery(request, PricesQuery);
  }
  if (barcode === undefined) return parseQuery(request, PricesQuery);
  return { barcode, granularity: granularity ?? "chain" };
}

function isGranularity(value: string): value is Granularity {
  return (GRANULARITIES as readonly string[]).includes(value);
}
