import { Elysia } from "elysia";
import type * as z from "zod";

/**
 * The `data` of an answer serialized once and reused across requests (hot read paths whose
 * answers are cached): the handler returns `{ data: PrebuiltJson, meta }`, the app's hooks fill
 * `meta` as usual, and the module's `prebuiltJson()` hook writes the envelope around the bytes
 * instead of serializing the data again.
 */
export class PrebuiltJson {
  private constructor(readonly bytes: Uint8Array) {}

  /** Serializes a JSON value once. */
  static of(value: unknown): PrebuiltJson {
    return new PrebuiltJson(encoder.encode(JSON.stringify(value)));
  }
}

const encoder = new TextEncoder();
const HEAD = encoder.encode('{"data":');
const META = encoder.encode(',"meta":');
const TAIL = encoder.encode("}");

/** `{"data":<bytes>,"meta":<meta>}` as one buffer. */
export function envelopeBytes(data: PrebuiltJson, meta: unknown): Uint8Array<ArrayBuffer> {
  const metaBytes = encoder.encode(JSON.stringify(meta ?? {}));
  const out = new Uint8Array(HEAD.length + data.bytes.length + META.length + metaBytes.length + TAIL.length);
  let at = 0;
  for (const part of [HEAD, data.bytes, META, metaBytes, TAIL]) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * A module-local plugin: answers whose `data` is a PrebuiltJson become a JSON Response with
 * the status and headers the hooks set. Register it in the module before its routes.
 */
export function prebuiltJson() {
  // No plugin name: each module needs its own copy (named plugins are deduplicated app-wide).
  return new Elysia().mapResponse({ as: "scoped" }, ({ responseValue, set }) => {
    const value = responseValue as { data?: unknown; meta?: unknown } | null;
    if (!value || typeof value !== "object" || !(value.data instanceof PrebuiltJson)) return;
    // Elysia merges set.headers into the returned Response.
    set.headers["content-type"] = "application/json;charset=utf-8";
    return new Response(envelopeBytes(value.data, value.meta), { status: typeof set.status === "number" ? set.status : 200 });
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
