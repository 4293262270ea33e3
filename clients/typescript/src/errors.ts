import type { components } from "./openapi.d.ts";

/** An error answer's body: RFC 9457 problem+json with the API's stable `code`. */
export type Problem = components["schemas"]["Problem"];
/** Every stable error code the API answers (the docs' /docs/errors lists them). */
export type ErrorCode = Problem["code"];

/**
 * An error answer (4xx/5xx), after any retries. `code`, `param` and `request_id` are the
 * problem+json members: branch on `code`, show `detail` to people, quote `request_id` when
 * reporting a problem. An answer that is not problem+json (a proxy's error page, the MCP
 * transport's JSON-RPC errors) has `code` null and its parsed body in `body`.
 */
export class MehirError extends Error {
  override readonly name = "MehirError";
  /** The HTTP status. */
  readonly status: number;
  /** The stable error code, e.g. `product_not_found`; null when the answer was not problem+json. */
  readonly code: ErrorCode | null;
  /** The offending parameter or body member, e.g. `items[3].quantity`, when the error names one. */
  readonly param: string | null;
  /** The request's id (the body's, else the `X-Request-Id` header). */
  readonly request_id: string | null;
  /** What went wrong, for people. */
  readonly detail: string | null;
  /** Seconds the answer's `Retry-After` asked for (429, 503), when it had one. */
  readonly retryAfter: number | null;
  /** The answer's body: the problem object, other JSON, or text. */
  readonly body: unknown;

  constructor(status: number, body: unknown, headers: Headers, retryAfter: number | null) {
    const problem = isProblem(body) ? body : null;
    const requestId = problem?.request_id ?? headers.get("x-request-id");
    super(problem ? `${status} ${problem.code}: ${problem.detail}` : `${status}: ${typeof body === "string" ? body.slice(0, 200) : JSON.stringify(body)?.slice(0, 200)}`);
    this.status = status;
    this.code = problem?.code ?? null;
    this.param = problem?.param ?? null;
    this.request_id = requestId ?? null;
    this.detail = problem?.detail ?? null;
    this.retryAfter = retryAfter;
    this.body = body;
  }
}

function isProblem(body: unknown): body is Problem {
  return typeof body === "object" && body !== null && typeof (body as Problem).code === "string" && typeof (body as Problem).status === "number";
}
