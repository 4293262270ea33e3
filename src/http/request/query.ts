import type * as z from "zod";
import { invalidParameter } from "../../errors/api-error.ts";
import { invalidInput, mustBe } from "./invalid-input.ts";
import { queryParams } from "./query-params.ts";

/**
 * Reads a route's query string into its zod schema, every value as the text it is.
 *
 * Elysia's own query handling is not used: given a zod schema it splits a value holding a comma
 * into an array and reads JSON-looking values (`q=[1]`) as JSON (elysiajs/elysia#1800), so
 * `q=חלב, 3%` was refused. Here each value is `URLSearchParams`' decoded text (`+` is a space,
 * `%2B` a plus). A parameter the schema knows, given twice, is 400 naming it (which one counts
 * would be a guess); parameters it does not know are ignored, as before.
 *
 * @example parseQuery(new Request("http://x/api/v1/prices/?barcode=1&city=תל אביב, יפו"), PricesQuery).city // "תל אביב, יפו"
 */
export function parseQuery<S extends z.ZodType>(request: Request, schema: S & { shape: Record<string, unknown> }): z.output<S> {
  const params = queryParams(request);
  const known = schema.shape;
  const values: Record<string, string> = {};
  for (const [name, value] of params) {
    if (!Object.hasOwn(known, name)) continue;
    if (Object.hasOwn(values, name)) throw invalidParameter(name, `\`${name}\` is given more than once; give it once.`);
    values[name] = value;
  }
  const parsed = schema.safeParse(values, { error: mustBe });
  if (parsed.success) return parsed.data;
  throw invalidInput(parsed.error.issues, "query");
}
