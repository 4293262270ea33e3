/**
 * The API's errors: every stable code with its status and title, and the ApiError handlers,
 * plugins and services throw. A leaf: it imports nothing, so every side may import it. The app's
 * error hook renders an ApiError as problem+json (src/http/encoding/problem.ts).
 */

export const DOCS_ERRORS_URL = "/docs/errors";

/** Every stable error code with its status and title (the docs' error list is built from this). */
export const ERROR_CODES = {
  invalid_parameter: { status: 400, title: "Invalid parameter" },
  invalid_cursor: { status: 400, title: "Invalid cursor" },
  ambiguous_product: { status: 400, title: "Ambiguous product code" },
  invalid_request: { status: 400, title: "Invalid request (no usable Host, or a malformed request target)" },
  missing_api_key: { status: 401, title: "Missing API key" },
  invalid_api_key: { status: 401, title: "Invalid API key" },
  plan_upgrade_required: { status: 403, title: "Plan upgrade required" },
  publishable_key_not_allowed: { status: 403, title: "Publishable key not allowed here" },
  secret_key_not_allowed: { status: 403, title: "Secret key not allowed here" },
  origin_not_allowed: { status: 403, title: "Origin not allowed" },
  live_key_required: { status: 403, title: "Live key required (not available in test mode)" },
  csrf_failed: { status: 403, title: "Invalid form token" },
  not_found: { status: 404, title: "Not found" },
  product_not_found: { status: 404, title: "Product not found" },
  chain_not_found: { status: 404, title: "Chain not found" },
  city_not_found: { status: 404, title: "City not found" },
  alert_not_found: { status: 404, title: "Alert not found" },
  export_not_found: { status: 404, title: "Export not found" },
  method_not_allowed: { status: 405, title: "Method not allowed" },
  alert_limit_reached: { status: 409, title: "Alert limit reached" },
  primary_only: { status: 421, title: "Served by the primary only (this server is a read-only replica)" },
  payload_too_large: { status: 413, title: "Payload too large" },
  uri_too_long: { status: 414, title: "URI too long" },
  unsupported_media_type: { status: 415, title: "Unsupported media type" },
  rate_limited: { status: 429, title: "Rate limit exceeded" },
  quota_exceeded: { status: 429, title: "Monthly quota exceeded" },
  internal_error: { status: 500, title: "Internal error" },
  data_not_ready: { status: 503, title: "Data not ready" },
  service_unavailable: { status: 503, title: "Service unavailable (shared state unreachable; retry shortly)" },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Extra members of a problem body (RFC 9457 extensions), e.g. `candidates` of `ambiguous_product`. */
export interface ProblemExtensions {
  candidates?: { barcode: string; chain_id: string | null; name: string }[];
}

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    detail: string,
    readonly options: {
      param?: string;
      headers?: Record<string, string>;
      extensions?: ProblemExtensions;
      /** Why, for the request's log line only (`error_reason`); never in the answer. */
      reason?: string;
    } = {},
  ) {
    super(detail);
    this.name = "ApiError";
    this.status = ERROR_CODES[code].status;
  }
}

/** Shorthand for the most common error. */
export function invalidParameter(param: string, detail: string): ApiError {
  return new ApiError("invalid_parameter", detail, { param });
}
