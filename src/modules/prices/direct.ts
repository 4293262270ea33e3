import { requestPath } from "../../http/request/request-target.ts";
import type { PeerSource } from "../../http/request/client-address.ts";
import { dataSetOf } from "../../serving/data-set.ts";
import { directSteps, type DirectDeps } from "../../http/direct-route.ts";
import type { MaybePromise } from "../../lib/maybe-promise.ts";
import { GET_PRICES, pricesAnswer } from "./index.ts";

export type { DirectDeps } from "../../http/direct-route.ts";

/**
 * `GET /api/v1/prices/` answered before Elysia's lifecycle (the app's `wrap`, before Elysia makes
 * the request's context) — the API's hottest read, where that lifecycle (context, hook chain,
 * promises, header merging, an after-response task per request) cost more than the answer
 * itself. It runs the same steps the hooks run, in the same order, with the same functions (directSteps): the access layer's
 * guard (keys, rate limit, quota), the route's handler (pricesAnswer), the answer's meta,
 * validators and encoding, then the quota's settlement and the request's metrics and log line.
 * Errors are rendered as the app's error hook renders them. Requests it does not take — another
 * method or path, or a conditional GET (`If-None-Match`, whose `*` is decided after the handler)
 * — return undefined before any step ran, and Elysia answers them as every other route.
 */
export function directPrices(deps: DirectDeps) {
  const steps = directSteps(deps, "GET", GET_PRICES.path);

  /** The answer once the guard let the request through. */
  function answer(request: Request): Response {
    let value: ReturnType<typeof pricesAnswer>;
    try {
      value = pricesAnswer(request, dataSetOf(request));
    } catch (error) {
      return steps.failed(request, error);
    }
    return steps.answered(request, value);
  }

  return (request: Request, server: PeerSource | null): MaybePromise<Response> | undefined => {
    if (request.method !== "GET") return undefined;
    const path = requestPath(request);
    if (path !== "/api/v1/prices/" && path !== "/api/v1/prices") return undefined;
    if (request.headers.has("if-none-match")) return undefined;
    return steps.admit(request, server, answer);
  };
}
