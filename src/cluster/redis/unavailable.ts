import { ApiError } from "../../errors/api-error.ts";
import { StoreUnavailable } from "./shared-store.ts";

/** Seconds a client is told to wait when Redis does not answer (it is retried within a second). */
export const UNAVAILABLE_RETRY_S = 1;

/**
 * Runs a call to the shared store; StoreUnavailable becomes 503 `service_unavailable` with
 * `Retry-After` — a metered call fails closed (never served uncounted, never over quota). The
 * store's reason goes to the request's log line (`error_reason`), not to the client.
 */
export async function orUnavailable<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof StoreUnavailable) {
      throw new ApiError("service_unavailable", "Keys and usage counters are unreachable for a moment; retry shortly.", {
        headers: { "retry-after": String(UNAVAILABLE_RETRY_S) },
        reason: error.message,
      });
    }
    throw error;
  }
}
