import type { Database } from "bun:sqlite";
import type { AppDeps } from "../app.ts";
import { DataState } from "../data-state.ts";
import { backgroundPace } from "../http/background-pace.ts";
import type { DataSet, DataSets } from "../http/data-set.ts";
import { ProductSearch } from "../search/index.ts";

/**
 * How long a replaced snapshot stays open: requests that selected it finish on it (the longest
 * answers take seconds), then it is closed.
 */
export const RETIRE_AFTER_MS = 60_000;

/**
 * A replica's switch to a snapshot: builds the snapshot's data state and search index first
 * (the previous snapshot serves meanwhile), then makes it the live data set in one assignment.
 * The app's own deps follow too (probes, metrics, the widget's demo page read them). The
 * previous database is closed RETIRE_AFTER_MS later.
 *
 * @example follower = new ReplicaFollower({ …, serve: snapshotServer(deps, deps.dataSets!) })
 */
export function snapshotServer(deps: AppDeps, dataSets: DataSets, retireAfterMs = RETIRE_AFTER_MS) {
  return async (db: Database): Promise<void> => {
    const data = new DataState(db);
    const search = new ProductSearch({ pace: backgroundPace(deps) });
    await search.rebuild(db);
    const previous = dataSets.live;
    const next: DataSet = { ...previous, db: { ...previous.db, prices: db }, data, search };
    dataSets.replaceLive(next);
    Object.assign(deps, { db: next.db, data, search });
    // The first live set is the replica's empty local database, which the server closes itself.
    if (previous.data.hasData) setTimeout(() => previous.db.prices.close(), retireAfterMs).unref?.();
  };
}
