import { Elysia } from "elysia";
import type * as z from "zod";

/**
 * The `data` of an answer serialized once and reused across requests (hot read paths whose
 * answers are cached): the handler returns `{ data: PrebuiltJson, meta }`, the app's hooks fill
 * `meta` as usual, and the module's `prebuiltJson()` hook writes the envelope around the text
 * instead of serializing the data again.
 */
export class PrebuiltJson {
  private constructor(readonly text: string) {}

  /** Serializes a JSON value once. */
  static of(value: unknown): PrebuiltJson {
    return new PrebuiltJson(JSON.stringify(value));
  }
}

/** `{"data":<text>,"meta":<meta>}`. */
export function envelopeText(data: PrebuiltJson, meta: unknown): string {
  return '{"data":' + data.text + ',"meta":' + JSON.stringify(meta ?? {}) + "}";
}

/**
 * A module-local plugin: answers whose `data` is a PrebuiltJson are written as JSON text with
 * the status and headers the hooks set. Register it in the module before its routes.
 */
export function prebuiltJson() {
  // No plugin name: each module needs its own copy (named plugins are deduplicated app-wide).
  return new Elysia().mapResponse({ as: "scoped" }, ({ responseValue, set }) => {
    const value = responseValue as { data?: unknown; meta?: unknown } | null;
    if (!value || typeof value !== "object" || !(value.data instanceof PrebuiltJson)) return;
    // A string answer is turned into a Response by Elysia in one step, with set.headers and
    // set.status (returning a Response here would be copied once more to merge the headers).
    set.headers["content-type"] = "application/json;charset=utf-8";
    // (Elysia's types ask for a Response; at run time any answer value is mapped.)
    return envelopeText(value.data, value.meta) as unknown as Response;
  });
}

/**
 * The same zod schema for the OpenAPI document, without the per-request response validation
 * (for answers built from cached, already-checked data: validating a 30-entry answer on every
 * request cost more than computing it). Tests check such answers against the real schema.
 */
export function documentedOnly(schema: z.ZodType): z.ZodType<unknown> {
  const copy = schema.clone();
  const standard = (schema as unknown as { "~standard": Record<string, unknown> })["~standard"];
  Object.defineProperty(copy, "~standard", { value: { ...standard, validate: (value: unknown) => ({ value }) }, enumerable: false });
  return copy;
}
