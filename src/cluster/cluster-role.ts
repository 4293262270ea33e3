import { join } from "node:path";
import type { App } from "../app.ts";
import type { Services } from "../services.ts";
import { PRICES_FILE } from "../db/open.ts";
import { header, sample } from "../lib/prometheus.ts";
import { ReplicaFollower } from "./replica-follower.ts";
import { snapshotServer } from "./serve-snapshot.ts";
import { SnapshotPublisher } from "./snapshot-publisher.ts";
import { snapshotRoutes } from "./snapshot-routes.ts";
import { SNAPSHOTS_DIR, SnapshotStore } from "./snapshot-store.ts";

type Log = (msg: string, fields?: Record<string, unknown>) => void;

/** Snapshots a primary keeps: replicas download the newest; older ones go after a new one is published. */
export const SNAPSHOTS_KEPT = 3;

export interface RunningRole {
  publisher: SnapshotPublisher | null;
  follower: ReplicaFollower | null;
  /** Prometheus lines of the role (appended to /metrics). */
  metrics(): string;
  stop(): void;
}

/**
 * Starts what a server's MEHIR_ROLE adds (docs/operations.md "Scale out"):
 * - primary: a snapshot after every new data version, served to replicas on the internal
 *   snapshot endpoints (authenticated by the cluster secret);
 * - replica: follows the primary's snapshots, serving each once verified and indexed;
 * - standalone: nothing.
 * Call before the app listens (the primary's routes are added to it).
 */
export function startClusterRole(deps: Services, app: App, log: { info: Log; error: Log }): RunningRole {
  const { settings } = deps;
  const store = new SnapshotStore(join(settings.dataDir, SNAPSHOTS_DIR));
  let publisher: SnapshotPublisher | null = null;
  let follower: ReplicaFollower | null = null;
  if (settings.role === "primary") {
    app.use(snapshotRoutes(store, settings.clusterSecret!));
    publisher = new SnapshotPublisher({ pricesPath: join(settings.dataDir, PRICES_FILE), snapshotsDir: store.root, keep: SNAPSHOTS_KEPT, priority: settings.importPriority, info: log.info, error: log.error });
    deps.data.onChange(() => publisher!.request());
    if (deps.data.hasData) publisher.request();
  } else if (settings.role === "replica") {
    follower = new ReplicaFollower({ primary: { url: settings.primaryUrl!, secret: settings.clusterSecret! }, store, serve: snapshotServer(deps), info: log.info, error: log.error });
    void follower.start();
  }
  return {
    publisher,
    follower,
    metrics() {
      let out = header("mehir_cluster_role", "gauge", "1 for the server's role (standalone, primary or replica)");
      out += sample("mehir_cluster_role", { role: settings.role }, 1);
      if (publisher) {
        out += header("mehir_cluster_snapshot_version", "gauge", "Data version of the newest snapshot published to replicas (0: none yet)");
        out += sample("mehir_cluster_snapshot_version", {}, store.latest()?.data_version ?? 0);
      }
      if (follower) {
        const status = follower.status;
        out += header("mehir_replica_snapshot_version", "gauge", "Data version of the snapshot this replica serves (0: none yet, not ready)");
        out += sample("mehir_replica_snapshot_version", {}, status.version);
        out += header("mehir_replica_snapshots_refused_total", "counter", "Snapshots refused (size, SHA-256, schema, quick_check or probe queries) or not servable, since start");
        out += sample("mehir_replica_snapshots_refused_total", {}, status.refused);
        out += header("mehir_replica_poll_failures_total", "counter", "Failed polls of the primary (unreachable or an error answer), since start");
        out += sample("mehir_replica_poll_failures_total", {}, status.pollFailures);
      }
      return out;
    },
    stop() {
      publisher?.stop();
      follower?.stop();
    },
  };
}
