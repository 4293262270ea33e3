import type * as z from "zod";
import { ApiError } from "../../errors/api-error.ts";
import { invalidInput, mustBe } from "./invalid-input.ts";

export const MAX_JSON_BODY = 64 * 1024;

/**
 * Reads a JSON request body with a size limit, without trusting Content-Length alone:
 * 415 unless the media type is JSON, 413 past `limit` bytes, 400 `invalid_parameter` with
 * `param: "body"` when it is empty or does not parse (the contract's code for an invalid body value).
 * `parse`: JSON.parse, or a function giving the same value or throwing as it does (the batch's).
 */
export async function readJsonBody(request: Request, limit = MAX_JSON_BODY, parse: (text: string) => unknown = JSON.parse): Promise<unknown> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json" && !/^application\/[a-z0-9.+-]*\+json$/.test(type)) {
    throw new ApiError("unsupported_media_type", "Send the body as application/json.");
  }
  const text = await readBodyText(request, limit);
  if (text.trim() === "") throw new ApiError("invalid_parameter", "The request body is empty.", { param: "body" });
  try {
    return parse(text);
  } catch {
    throw new ApiError("invalid_parameter", "The request body is not valid JSON.", { param: "body" });
  }
}

/**
 * The request body as UTF-8 text ("" when there is none), read with a size limit: 413
 * `payload_too_large` past `limit` bytes, whether declared by Content-Length or seen while reading.
 */
export async function readBodyText(request: Request, limit = MAX_JSON_BODY): Promise<string> {
  const length = request.headers.get("content-length");
  const declared = Number(length ?? "0");
  if (declared > limit) throw tooLarge(limit);
  if (!request.body) return "";
  // A declared length is what the server reads (HTTP/1.1 framing: no more bytes belong to this
  // request), so the body is read in one step (and still measured); chunked bodies are counted
  // as they come.
  if (length !== null && Number.isInteger(declared) && declared >= 0) {
    const bytes = await request.bytes();
    if (bytes.byteLength > limit) throw tooLarge(limit);
    return new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  }
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return new TextDecoder("utf-8", { fatal: false }).decode(Buffer.concat(chunks));
}

function tooLarge(limit: number): ApiError {
  return new ApiError("payload_too_large", `The request body is larger than ${limit / 1024} KiB.`);
}

/** Validates with zod; the first issue becomes 400 invalid_parameter naming its member (invalid-input.ts). */
export function validateBody<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value, { error: mustBe });
  if (parsed.success) return parsed.data;
  throw invalidInput(parsed.error.issues, "body");
}
