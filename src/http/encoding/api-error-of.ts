import { ApiError } from "./problem.ts";
import { log } from "../../log.ts";

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

/** Elysia's validation error → invalid_parameter naming the first offending field. */
function validationError(error: unknown): ApiError {
  const e = error as { type?: string; all?: { path?: string; message?: string; summary?: string }[] } | null;
  const first = e?.all?.[0];
  const path = (first?.path ?? "").replace(/^\//, "").replaceAll("/", ".").replace(/\.(\d+)(?=\.|$)/g, "[$1]");
  const where = e?.type === "body" ? (path ? path : "body") : path || (e?.type ?? "request");
  return new ApiError("invalid_parameter", first?.message ?? first?.summary ?? "Invalid value.", { param: where });
}
