/**
 * Worker entrypoint: checks a downloaded snapshot off the serving thread — its schema,
 * `PRAGMA quick_check` and data version (checkSnapshotFile), then the API's probe queries
 * (probeSnapshot), which the caller times. Started by snapshot-check.ts; the compiled binary
 * lists this file as an extra entrypoint (src/workers.ts).
 */
import { checkSnapshotFile, openSnapshot } from "./snapshot-file.ts";
import { probeSnapshot } from "./snapshot-probes.ts";
import type { SnapshotCheckJob, SnapshotCheckReply } from "./snapshot-check.ts";

declare const self: Worker;

self.onmessage = (event: MessageEvent<SnapshotCheckJob>) => {
  const reply = (message: SnapshotCheckReply) => self.postMessage(message);
  try {
    checkSnapshotFile(event.data.path, event.data.expectedVersion);
    reply({ kind: "probing" });
    const db = openSnapshot(event.data.path);
    try {
      probeSnapshot(db);
    } finally {
      db.close();
    }
    reply({ kind: "done" });
  } catch (error) {
    reply({ kind: "error", message: (error as Error).message });
  }
};
