import { requestSlot } from "./request-slot.ts";

const parsed = requestSlot<URLSearchParams>("queryParams");

/**
 * The request's query parameters, parsed once per request: the access layer (a key in the query,
 * a secret key where it must not be) and the route's query parsing read the same object. Values
 * are URLSearchParams' decoded text (`+` is a space, `%2B` a plus); the fragment is not part of it.
 * Nobody may change the object (it is shared).
 *
 * @example queryParams(new Request("http://x/api/v1/prices/?barcode=1")).get("barcode") // "1"
 */
export function queryParams(request: Request): URLSearchParams {
  let params = parsed.get(request);
  if (params === undefined) {
    const url = request.url;
    const at = url.indexOf("?");
    let query = "";
    if (at >= 0) {
      const hash = url.indexOf("#", at);
      query = hash >= 0 ? url.slice(at + 1, hash) : url.slice(at + 1);
    }
    params = new URLSearchParams(query);
    parsed.set(request, params);
  }
  return params;
}
