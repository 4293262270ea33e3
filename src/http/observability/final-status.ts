import { ApiError } from "../../errors/api-error.ts";

/** The parts of Elysia's onAfterResponse context that tell how a request ended. */
export interface EndedRequest {
  set: { status?: unknown };
  error?: unknown;
  code?: unknown;
  responseValue?: unknown;
}

/**
 * The status a request was answered with, as seen from onAfterResponse: errors are rendered by
 * the app's onError (problem+json), so their status is derived the way it derives it;
 * `hasOtherMethods(request)` tells a 405 from a 404 for paths no route matched (a function made
 * once by the caller, not one per request).
 */
export function finalStatus(ctx: EndedRequest, request: Request, hasOtherMethods: (request: Request) => boolean): number {
  if (ctx.responseValue instanceof Response) return ctx.responseValue.status;
  if (ctx.error !== undefined && ctx.error !== null) {
    if (ctx.error instanceof ApiError) return ctx.error.status;
    if (ctx.code === "NOT_FOUND") return hasOtherMethods(request) ? 405 : 404;
    if (ctx.code === "VALIDATION" || ctx.code === "PARSE" || ctx.code === "INVALID_COOKIE_SIGNATURE") return 400;
    if ((ctx.error as { status?: unknown }).status === 413) return 413;
    return 500;
  }
  return typeof ctx.set.status === "number" ? ctx.set.status : 200;
}

/** The problem+json code of an error answer, when the error carries one. */
export function errorCode(ctx: EndedRequest): string | null {
  return ctx.error instanceof ApiError ? ctx.error.code : null;
}

/** The reason an error carries for the log (e.g. why Redis was unavailable), if any. */
export function errorReason(ctx: EndedRequest): string | null {
  return ctx.error instanceof ApiError ? (ctx.error.options.reason ?? null) : null;
}
