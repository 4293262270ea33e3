import { log } from "../lib/log.ts";
import { ApiError } from "../errors/api-error.ts";
import { problemResponse } from "./encoding/problem.ts";
import { requestState } from "./request/request-state.ts";

/**
 * What keeps one request from ending the process. Hooks that run after the answer was handed
 * over (the request log, metrics, the quota's settlement) run where nothing would catch a throw —
 * Elysia calls them from setImmediate, where an exception is uncaught and ends the process — so
 * each runs through `afterAnswer`, which logs a failure with the request id instead. An error
 * that escapes the app's own handling reaches Bun's `error` handler: `lastResortAnswer` answers
 * it 500 problem+json and logs it.
 */
export function afterAnswer(request: Request, what: string, step: () => void): void {
  try {
    step();
  } catch (error) {
    log.error("after-answer step failed (the server keeps serving)", { request_id: safeId(request), step: what, error: describe(error) });
  }
}

/**
 * Resolves once the after-answer steps already queued have run. Elysia queues them with
 * setImmediate (first in, first out) and the stop's own awaits never leave the microtask queue:
 * without this turn a graceful stop right after a burst exits before the burst's last request
 * lines are logged and its quotas settled (test/http/observability/log-on-stop.test.ts).
 */
export function afterAnswersQueued(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Bun.serve's `error` handler: 500 problem+json with a fresh request id, logged. */
export function lastResortAnswer(error: Error): Response {
  const id = `req_lastresort_${crypto.randomUUID().replaceAll("-", "")}`;
  log.error("unhandled error", { request_id: id, error: describe(error) });
  return problemResponse(new ApiError("internal_error", `Something went wrong; quote request id ${id} when reporting it.`), id);
}

/** The request's id, or "unknown" when even that cannot be read. */
function safeId(request: Request): string {
  try {
    return requestState(request).id;
  } catch {
    return "unknown";
  }
}

function describe(error: unknown): string {
  return String((error as Error | null)?.stack ?? error);
}
