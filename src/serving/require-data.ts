import type { SnapshotSource } from "../data/snapshot-source.ts";
import { ApiError } from "../errors/api-error.ts";

/** Throws 503 data_not_ready (Retry-After 10) until the first import has committed. */
export function requireData(deps: { data: Pick<SnapshotSource, "hasData"> }): void {
  if (!deps.data.hasData) {
    throw new ApiError("data_not_ready", "Price data is still being imported; try again shortly.", { headers: { "retry-after": "10" } });
  }
}
