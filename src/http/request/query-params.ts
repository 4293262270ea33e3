import { requestSlot } from "./request-slot.ts";

/**
 * A request's query parameters in order, each name and value decoded as URLSearchParams decodes
 * them (application/x-www-form-urlencoded: `+` is a space, `%2B` a plus). Nobody may change it (it is shared).
 */
export type QueryParams = readonly (readonly [name: string, value: string])[];

const parsed = requestSlot<QueryParams>("queryParams");

/**
 * The request's query parameters, parsed once per request: the access layer (a key in the query,
 * a secret key where it must not be) and the route's query parsing read the same list. The
 * fragment is not part of it.
 *
 * @example paramValue(queryParams(new Request("http://x/api/v1/prices/?barcode=1")), "barcode") // "1"
 */
export function queryParams(request: Request): QueryParams {
  let params = parsed.get(request);
  if (params === undefined) {
    const url = request.url;
    const at = url.indexOf("?");
    let query = "";
    if (at >= 0) {
      const hash = url.indexOf("#", at);
      query = hash >= 0 ? url.slice(at + 1, hash) : url.slice(at + 1);
    }
    params = parseQueryString(query);
    parsed.set(request, params);
  }
  return params;
}

/** The first value given for `name`, or null (as URLSearchParams' `get`). */
export function paramValue(params: QueryParams, name: string): string | null {
  for (const [given, value] of params) if (given === name) return value;
  return null;
}

// ASCII without `%` (0x25) and `+` (0x2B): text that decodes to itself.
const DECODES_AS_IS = /^[\x00-\x24\x26-\x2a\x2c-\x7f]*$/;

/**
 * A query string's parameters. Most queries (`barcode=7290000066318`) have nothing to decode:
 * split on `&` and the first `=` as URLSearchParams splits them, without making one (its object,
 * then its iterator, cost more than the rest of reading a query); any other goes through URLSearchParams.
 */
export function parseQueryString(query: string): QueryParams {
  if (!DECODES_AS_IS.test(query)) return [...new URLSearchParams(query)];
  const params: [string, string][] = [];
  for (const piece of query.split("&")) {
    if (piece === "") continue;
    const eq = piece.indexOf("=");
    params.push(eq < 0 ? [piece, ""] : [piece.slice(0, eq), piece.slice(eq + 1)]);
  }
  return params;
}
