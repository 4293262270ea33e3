import type * as z from "zod";
import { ApiError } from "../../errors/api-error.ts";
import { invalidInput, invalidWhole, mustBe } from "../request/invalid-input.ts";
import { log } from "../../lib/log.ts";

/** Turns any thrown value into an ApiError; unknown errors become internal_error (logged, never shown). */
export function toApiError(code: string | number, error: unknown, requestId: string): ApiError {
  if (error instanceof ApiError) return error;
  switch (code) {
    case "NOT_FOUND":
      return new ApiError("not_found", "No such resource.");
    case "VALIDATION":
      return validationError(error);
    case "PARSE":
      return new ApiError("invalid_parameter", "The request body could not be parsed as JSON.", { param: "body" });
    case "INVALID_COOKIE_SIGNATURE":
      return new ApiError("invalid_parameter", "Invalid cookie.", { param: "cookie" });
  }
  const status = (error as { status?: number } | null)?.status;
  if (status === 413) return new ApiError("payload_too_large", "The request body is too large.");
  log.error("unhandled error", { request_id: requestId, error: String((error as Error)?.stack ?? error) });
  return new ApiError("internal_error", `Something went wrong; quote request id ${requestId} when reporting it.`);
}

/**
 * Elysia's validation error (a route's path parameters) → invalid_parameter naming the first
 * offending one, told as every refused input is (invalid-input.ts): the route's zod schema is asked
 * again with `mustBe`, since Elysia's own issues carry zod's wording.
 */
function validationError(error: unknown): ApiError {
  const e = error as { type?: string; value?: unknown; validator?: { schema?: unknown } } | null;
  const whole = e?.type === "body" ? "body" : e?.type === "query" ? "query" : "path";
  const validator = e?.validator as Record<string, unknown> | undefined;
  const schema = (validator && "~standard" in validator ? validator : validator?.schema) as z.ZodType | undefined;
  if (typeof schema?.safeParse === "function") {
    const parsed = schema.safeParse(e?.value, { error: mustBe });
    if (!parsed.success) return invalidInput(parsed.error.issues, whole);
  }
  return invalidWhole(whole);
}
