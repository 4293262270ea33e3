import { then, type MaybePromise } from "../../maybe-promise.ts";
import { ApiError } from "../encoding/problem.ts";
import { requestSlot } from "../request/request-slot.ts";
import { requestState } from "../request/request-state.ts";
import { quotaHeaders } from "./response-headers.ts";
import type { Reservation } from "../../accounts/quota-ledger.ts";
import type { QuotaLedger } from "../../accounts/quota-ledger.ts";
import { secondsToNextMonth } from "../../accounts/utc-month.ts";

/**
 * How many calls of the monthly quota one request counts, per route. Every request counts one
 * call, taken by the access plugin before the handler runs, except on the routes listed here,
 * which count by the work the body asks for: the handler takes all their calls at once, with
 * chargeCalls, once the body is read and valid (a refused body counts one call).
 */
export const ROUTE_CALLS: Record<string, { itemsPerCall: number }> = {
  // One call per 10 items, rounded up: a batch of 1–10 is one call, of 100 ten.
  "POST /api/v1/prices/batch": { itemsPerCall: 10 },
};

/**
 * Calls a request to `route` asking for `items` items counts (at least one).
 * @example callsFor("POST /api/v1/prices/batch", 25) // 3
 */
export function callsFor(route: string, items: number): number {
  const rule = ROUTE_CALLS[route];
  return rule ? Math.max(1, Math.ceil(items / rule.itemsPerCall)) : 1;
}

/** True for a route in ROUTE_CALLS (route as registered, e.g. `/api/v1/prices/batch`). */
export function countsByWork(method: string, route: string): boolean {
  return ROUTE_CALLS[`${method} ${route}`] !== undefined;
}

/** The quota calls a request holds (given back when the answer does not count: 304, 429, 5xx). */
export const quotaReservations = requestSlot<Reservation>("quotaReservation");

/** A request of a ROUTE_CALLS route whose calls are not taken yet: whose quota, and its limit. */
export const deferredCharges = requestSlot<{ subject: string; limit: number }>("deferredCharge");

/** The 429 of a spent monthly quota, `Retry-After` at the next month's start. */
export function quotaExceeded(now: Date, detail: string): ApiError {
  return new ApiError("quota_exceeded", detail, {
    headers: { "retry-after": String(secondsToNextMonth(now)) },
  });
}

/**
 * Takes the `calls` a request of a ROUTE_CALLS route counts, all or none, at once
 * (exact under concurrency, like every reservation; given back like any on a 304, 429 or 5xx).
 * When fewer are left the request is refused whole with 429 `quota_exceeded` and counts nothing.
 * Test keys count nothing; a request already charged is not charged again.
 */
export function chargeCalls(quota: QuotaLedger, now: Date, request: Request, calls: number): MaybePromise<void> {
  const deferred = deferredCharges.get(request);
  const state = requestState(request);
  if (!deferred || !state.access) return;
  const access = state.access;
  deferredCharges.delete(request);
  return then(quota.tryReserve(deferred.subject, deferred.limit, now, calls, state.id), (result) => {
    if (!result.ok) {
      return then(quota.usedThisMonth(deferred.subject, now), (used): never => {
        const left = Math.max(0, deferred.limit - used);
        access.quotaRemaining = left;
        Object.assign(state.headers, quotaHeaders(deferred.limit, left));
        throw quotaExceeded(
          now,
          `This request counts ${calls} calls and ${left} of this month's ${deferred.limit} are left; send less, or wait until the quota renews at 00:00 UTC on the 1st.`,
        );
      });
    }
    quotaReservations.set(request, result.reservation);
    access.quotaReserved = true;
    access.quotaRemaining = result.remaining;
    Object.assign(state.headers, quotaHeaders(deferred.limit, result.remaining));
  });
}
