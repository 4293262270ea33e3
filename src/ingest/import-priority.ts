import { setPriority } from "node:os";

/** The CPU niceness imports run at: serving stays responsive while an import takes the rest. */
export const IMPORT_NICENESS = 10;

/**
 * Lowers the calling thread's CPU priority for an import (on Linux, niceness is per thread and
 * threads started afterwards — the parse workers — inherit it). Requests are latency-bound and
 * imports are batch work: on a small machine an import at full priority made the server fall
 * seconds behind. Where the platform refuses, the import runs at the priority it has.
 *
 * @example runAtImportPriority(); await importPaths({ … })
 */
export function runAtImportPriority(): void {
  try {
    setPriority(IMPORT_NICENESS);
  } catch {
    // Not permitted here (or not supported): keep the current priority.
  }
}
