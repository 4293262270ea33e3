import { ApiError, DOCS_ERRORS_URL, ERROR_CODES, type ErrorCode, type ProblemExtensions } from "../../errors/api-error.ts";

/**
 * The one error shape of the API on the wire: RFC 9457 problem+json with a stable `code`
 * (the codes and ApiError: src/errors/api-error.ts).
 */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  param?: string;
  request_id: string;
  candidates?: ProblemExtensions["candidates"];
}

/** The problem+json body for an error. */
export function problemBody(error: ApiError, requestId: string): Problem {
  const body: Problem = {
    type: `${DOCS_ERRORS_URL}#${error.code}`,
    title: ERROR_CODES[error.code].title,
    status: error.status,
    detail: error.message,
    code: error.code,
    request_id: requestId,
  };
  if (error.options.param !== undefined) body.param = error.options.param;
  if (error.options.extensions) Object.assign(body, error.options.extensions);
  return body;
}

/** A complete problem+json Response. */
export function problemResponse(error: ApiError, requestId: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(problemBody(error, requestId)), {
    status: error.status,
    headers: {
      "content-type": "application/problem+json; charset=utf-8",
      "x-request-id": requestId,
      ...headers,
      ...error.options.headers,
    },
  });
}
