import { livemodeOf } from "./livemode.ts";
import { requestState } from "./request-state.ts";

/**
 * The per-request fields of an answer's `meta` (every `{ data, meta }` answer): the request id,
 * `livemode` (test keys read test-mode data, the sandbox; everyone else live data) and, for a
 * secret key, the quota left.
 */
export function fillAnswerMeta(request: Request, meta: Record<string, unknown>): void {
  const state = requestState(request);
  meta.request_id = state.id;
  meta.livemode = livemodeOf(request);
  if (state.access && state.access.keyKind !== "publishable" && state.access.quotaRemaining !== null) {
    meta.quota_remaining = state.access.quotaRemaining;
  }
}
