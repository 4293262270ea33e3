import type { AccessLayer } from "../access/plugin.ts";
import type { PeerSource } from "./request/client-address.ts";
import type { RequestObserver } from "./observability/plugin.ts";
import type { EndedRequest } from "./observability/final-status.ts";
import { requestState } from "./request/request-state.ts";
import { fillAnswerMeta } from "./request/answer-meta.ts";
import { prebuiltAnswerBytes } from "./encoding/prebuilt-json.ts";
import { AnswerBuffer } from "./encoding/answer-buffer.ts";
import { ReusedHeaders } from "./encoding/reused-headers.ts";
import { problemResponse } from "./encoding/problem.ts";
import { toApiError } from "./encoding/api-error-of.ts";
import type { MaybePromise } from "../lib/maybe-promise.ts";
import type { RouteAudience } from "./routes.ts";
import { afterAnswer } from "./last-resort.ts";

/** What a direct route runs: the app's own access layer and request observer. */
export interface DirectDeps {
  access: AccessLayer;
  observer: RequestObserver;
}

const ANSWERED: EndedRequest = { set: { status: 200 } };

/**
 * The steps of a route answered before Elysia's lifecycle, in the app's `wrap` (the hottest
 * reads: src/modules/prices/direct.ts, src/modules/batch/direct.ts), for the route `method` `path`
 * (its pattern, as metrics and the request log name it). They are the hooks' own steps, in the
 * hooks' order, with the same functions: `admit` records the start and runs the access layer's
 * guard (keys, rate limit, quota) before the route's `answer`; `answered` writes a handler's
 * `{ data: PrebuiltJson, meta }` as the hooks would (meta, validators, encoding, headers in the
 * order the hooks set them); `failed` renders an error as the app's onError hook renders it.
 * Both record the end as Elysia's after-response hooks do: the request's metrics and log line,
 * the quota's settlement.
 */
export function directSteps(deps: DirectDeps, method: "GET" | "POST", path: string) {
  const { access, observer } = deps;
  // The route's audience and rules, matched once (the route table is read at the first request).
  let route: RouteAudience | undefined;
  // Answers of every size up to the buffer's limit are written into one buffer, reused: the
  // Response below copies them out at once (a fresh buffer per answer was memory the allocator
  // maps and frees again, request after request).
  const buffer = new AnswerBuffer(0);
  const allocate = (size: number) => buffer.take(size);
  // The answers' headers, mostly the same from one request to the next, updated in place.
  const reused = new ReusedHeaders();

  function ended(request: Request, how: EndedRequest): void {
    afterAnswer(request, "request log", () => observer.ended(request, path, how));
    afterAnswer(request, "quota settlement", () => access.settle(request, how));
  }

  /** The problem+json answer of an error, as the app's onError hook makes it, recorded as Elysia records it. */
  function failed(request: Request, error: unknown): Response {
    const state = requestState(request);
    const code = (error as { code?: unknown } | null)?.code ?? "UNKNOWN";
    const response = problemResponse(toApiError(code as string, error, state.id), state.id, state.headers);
    ended(request, { set: { status: response.status }, error, code, responseValue: response });
    return response;
  }

  /** The 200 answer of a handler's value (`data` a PrebuiltJson), or the error making it raised. */
  function answered(request: Request, value: { data: unknown; meta: Record<string, unknown> }): Response {
    let response: Response;
    try {
      const state = requestState(request);
      // The headers in the order the hooks set them: request id, access figures, validators, encoding.
      const headers: Record<string, string> = { "x-request-id": state.id };
      Object.assign(headers, state.headers);
      fillAnswerMeta(request, value.meta);
      access.validators(request, headers, 200);
      const bytes = prebuiltAnswerBytes(request, value, headers, allocate)!;
      response = new Response(bytes as Uint8Array<ArrayBuffer>, { status: 200, headers: reused.of(headers) });
    } catch (error) {
      return failed(request, error);
    }
    ended(request, ANSWERED);
    return response;
  }

  /** Records the start, runs the guard, then `answer` unless the guard answered (or refused) first. */
  function admit(request: Request, server: PeerSource | null, answer: (request: Request) => MaybePromise<Response>): MaybePromise<Response> {
    observer.started(request, server);
    let admitted: MaybePromise<Response | undefined>;
    try {
      admitted = access.guard(request, server, (route ??= access.routeOf(method, path)));
    } catch (error) {
      return failed(request, error);
    }
    if (admitted instanceof Promise) return admittedLater(request, admitted, answer);
    return admitted ?? answer(request);
  }

  /** admit's end when the guard answers later (a shared store): apart, so admit itself makes no closure. */
  function admittedLater(request: Request, admitted: Promise<Response | undefined>, answer: (request: Request) => MaybePromise<Response>): Promise<Response> {
    return admitted.then((early) => early ?? answer(request), (error: unknown) => failed(request, error));
  }

  return { admit, answered, failed };
}
