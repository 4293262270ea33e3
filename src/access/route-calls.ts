import { then, type MaybePromise } from "../lib/maybe-promise.ts";
import { ApiError } from "../errors/api-error.ts";
import { requestSlot } from "../http/request/request-slot.ts";
import { requestState } from "../http/request/request-state.ts";
import { quotaHeaders } from "./response-headers.ts";
import { countedRequestId } from "./counted-request.ts";
import type { Reservation } from "./quota-ledger.ts";
import type { QuotaLedger } from "./quota-ledger.ts";
import { secondsToNextMonth } from "../accounts/utc-month.ts";

/**
 * Calls a request of an operation counted by its work (`itemsPerCall`) asking for `items` items
 * counts: one per `itemsPerCall` items, rounded up, at least one. Every other request counts one
 * call, taken by the access plugin before the handler runs; these are taken by the handler, with
 * chargeCalls, once the body is read and valid (a refused body counts one call).
 * @example callsFor(10, 25) // 3
 */
export function callsFor(itemsPerCall: number, items: number): number {
  return Math.max(1, Math.ceil(items / itemsPerCall));
}

/** The quota calls a request holds (given back when the answer does not count: 304, 429, 5xx). */
export const quotaReservations = requestSlot<Reservation>("quotaReservation");

/** A request counted by its work whose calls are not taken yet: whose quota, and its limit. */
export const deferredCharges = requestSlot<{ subject: string; limit: number }>("deferredCharge");

/** The 429 of a spent monthly quota, `Retry-After` at the next month's start. */
export function quotaExceeded(now: Date, detail: string): ApiError {
  return new ApiError("quota_exceeded", detail, {
    headers: { "retry-after": String(secondsToNextMonth(now)) },
  });
}

/**
 * Takes the `calls` a request counted by its work counts, all or none, at once
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
  return then(quota.tryReserve(deferred.subject, deferred.limit, now, calls, countedRequestId(request, state.id)), (result) => {
    if (!result.ok) {
      return then(quota.usedThisMonth(deferred.subject, now), (used): never => {
        const left = Math.max(0, deferred.limit - used);
        access.quotaRemaining = left;
        quotaHeaders(deferred.limit, left, state.headers);
        throw quotaExceeded(
          now,
          `This request counts ${calls} calls and ${left} of this month's ${deferred.limit} are left; send less, or wait until the quota renews at 00:00 UTC on the 1st.`,
        );
      });
    }
    quotaReservations.set(request, result.reservation);
    access.quotaReserved = true;
    access.quotaRemaining = result.remaining;
    quotaHeaders(deferred.limit, result.remaining, state.headers);
  });
}
