import type { AccessLayer } from "../../http/access/plugin.ts";
import { pathOf } from "../../http/access/plugin.ts";
import type { PeerSource } from "../../http/access/client-address.ts";
import type { RequestObserver } from "../../http/observability/plugin.ts";
import type { EndedRequest } from "../../http/observability/final-status.ts";
import { requestState } from "../../http/request/request-state.ts";
import { dataSetOf } from "../../http/answers/data-set.ts";
import { fillAnswerMeta } from "../../http/answers/answer-meta.ts";
import { prebuiltAnswerBytes } from "../../http/encoding/prebuilt-json.ts";
import { AnswerBuffer } from "../../http/encoding/answer-buffer.ts";
import { problemResponse } from "../../http/encoding/problem.ts";
import { toApiError } from "../../http/encoding/api-error-of.ts";
import type { MaybePromise } from "../../maybe-promise.ts";
import { GET_PRICES, pricesAnswer } from "./index.ts";

/** What the direct route runs: the app's own access layer and request observer. */
export interface DirectDeps {
  access: AccessLayer;
  observer: RequestObserver;
}

const ANSWERED: EndedRequest = { set: { status: 200 } };

/**
 * `GET /api/v1/prices/` answered in the app's first onRequest hook, before Elysia's lifecycle —
 * the API's hottest read, where that lifecycle (context, hook chain, promises, header merging,
 * an after-response task per request) cost more than the answer itself. It runs the same steps
 * the hooks run, in the same order, with the same functions: the access layer's guard (keys, rate
 * limit, quota), the route's handler (pricesAnswer), the answer's meta, validators and encoding,
 * then the quota's settlement and the request's metrics and log line. Errors are rendered as the
 * app's error hook renders them. Requests it does not take — another method or path, or a
 * conditional GET (`If-None-Match`, whose `*` is decided after the handler) — return undefined
 * before any step ran, and Elysia answers them as every other route.
 */
export function directPrices(deps: DirectDeps) {
  const { access, observer } = deps;
  // Large answers are written into one buffer, reused: the Response below copies them out at once.
  const buffer = new AnswerBuffer();
  const allocate = (size: number) => buffer.take(size);

  /** The problem+json answer of an error, as the app's onError hook makes it, recorded as Elysia records it. */
  function failed(request: Request, error: unknown): Response {
    const state = requestState(request);
    const code = (error as { code?: unknown } | null)?.code ?? "UNKNOWN";
    const response = problemResponse(toApiError(code as string, error, state.id), state.id, state.headers);
    ended(request, { set: { status: response.status }, error, code, responseValue: response });
    return response;
  }

  function ended(request: Request, how: EndedRequest): void {
    observer.ended(request, GET_PRICES.path, how);
    access.settle(request, how);
  }

  /** The answer once the guard let the request through. */
  function answer(request: Request): Response {
    let response: Response;
    try {
      const value = pricesAnswer(request, dataSetOf(request));
      const state = requestState(request);
      // The headers in the order the hooks set them: request id, access figures, validators, encoding.
      const headers: Record<string, string> = { "x-request-id": state.id };
      Object.assign(headers, state.headers);
      fillAnswerMeta(request, value.meta);
      access.validators(request, headers, 200);
      const bytes = prebuiltAnswerBytes(request, value, headers, allocate)!;
      response = new Response(bytes as Uint8Array<ArrayBuffer>, { status: 200, headers });
    } catch (error) {
      return failed(request, error);
    }
    ended(request, ANSWERED);
    return response;
  }

  return (request: Request, server: PeerSource | null): MaybePromise<Response> | undefined => {
    if (request.method !== "GET") return undefined;
    const path = pathOf(request.url);
    if (path !== "/api/v1/prices/" && path !== "/api/v1/prices") return undefined;
    if (request.headers.has("if-none-match")) return undefined;
    observer.started(request, server);
    let admitted: MaybePromise<Response | undefined>;
    try {
      admitted = access.guard(request, server);
    } catch (error) {
      return failed(request, error);
    }
    if (admitted instanceof Promise) return admitted.then((early) => early ?? answer(request), (error: unknown) => failed(request, error));
    return admitted ?? answer(request);
  };
}
