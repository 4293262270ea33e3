import type { Database } from "bun:sqlite";
import { DataState } from "../data/data-state.ts";
import { ProductSearch } from "../search/index.ts";
import type { Services } from "../services.ts";

/**
 * How long a replaced snapshot stays open: requests that selected it finish on it (the longest
 * answers take seconds), then it is closed.
 */
export const RETIRE_AFTER_MS = 60_000;

/**
 * A replica's switch to a snapshot: builds the snapshot's data state and search index first
 * (the previous snapshot serves meanwhile), then makes it the live data set (its own tables and
 * answer caches) in one assignment. The services' live data follows too (probes read it). The
 * previous database is closed RETIRE_AFTER_MS later.
 *
 * @example follower = new ReplicaFollower({ …, serve: snapshotServer(services) })
 */
export function snapshotServer(services: Services, retireAfterMs = RETIRE_AFTER_MS) {
  const { dataSets } = services;
  return async (db: Database): Promise<void> => {
    const data = new DataState(db);
    const search = new ProductSearch({ pace: services.backgroundPace });
    await search.rebuild(db);
    const previous = dataSets.live;
    dataSets.replaceLive(services.liveDataSet(data, search));
    Object.assign(services, { db: { ...services.db, prices: db }, data, search });
    // The first live set is the replica's empty local database, which the server closes itself.
    if (previous.data.hasData) setTimeout(() => previous.db.prices.close(), retireAfterMs).unref?.();
  };
}
