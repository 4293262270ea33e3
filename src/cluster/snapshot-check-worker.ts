/**
 * Worker entrypoint: checks a downloaded snapshot (`PRAGMA quick_check` and its data version) off
 * the serving thread. Started by snapshot-check.ts; the compiled binary lists this file as an
 * extra entrypoint (src/workers.ts).
 */
import { checkSnapshotFile } from "./snapshot-file.ts";
import type { SnapshotCheckJob } from "./snapshot-check.ts";

declare const self: Worker;

self.onmessage = (event: MessageEvent<SnapshotCheckJob>) => {
  try {
    checkSnapshotFile(event.data.path, event.data.expectedVersion);
    self.postMessage({ kind: "done" });
  } catch (error) {
    self.postMessage({ kind: "error", message: (error as Error).message });
  }
};
