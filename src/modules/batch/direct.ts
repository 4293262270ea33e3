import { requestPath } from "../../http/request/request-target.ts";
import type { PeerSource } from "../../http/request/client-address.ts";
import { dataSetOf } from "../../serving/data-set.ts";
import { directSteps, type DirectDeps } from "../../http/direct-route.ts";
import type { MaybePromise } from "../../lib/maybe-promise.ts";
import type { Services } from "../../services.ts";
import { BATCH_PRICES, batchAnswer } from "./index.ts";

/**
 * `POST /api/v1/prices/batch/` answered before Elysia's lifecycle (the app's `wrap`), as
 * `GET /api/v1/prices/` is (src/modules/prices/direct.ts): the same steps as the hooks, with the
 * same functions (directSteps) and the route's own handler (batchAnswer). Other requests return
 * undefined before any step ran.
 */
export function directBatch(deps: DirectDeps & { services: Pick<Services, "access" | "now"> }) {
  const steps = directSteps(deps, "POST", BATCH_PRICES.path);

  /** The answer once the guard let the request through. */
  function answer(request: Request): Promise<Response> {
    let value: ReturnType<typeof batchAnswer>;
    try {
      value = batchAnswer(request, dataSetOf(request), deps.services);
    } catch (error) {
      return Promise.resolve(steps.failed(request, error));
    }
    return value.then((answered) => steps.answered(request, answered), (error: unknown) => steps.failed(request, error));
  }

  return (request: Request, server: PeerSource | null): MaybePromise<Response> | undefined => {
    if (request.method !== "POST") return undefined;
    const path = requestPath(request);
    if (path !== "/api/v1/prices/batch/" && path !== "/api/v1/prices/batch") return undefined;
    return steps.admit(request, server, answer);
  };
}
