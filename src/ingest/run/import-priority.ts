import { getPriority, setPriority } from "node:os";

/**
 * How imports share the CPU with serving: `idle` (default) runs the import only on CPU time
 * nothing else wants (Linux SCHED_IDLE), `low` 10 steps nicer than the thread it starts on (niceness
 * 10 for a process started at 0; a process run under `nice` stays above its import), `normal` as any thread. On a
 * 2-core machine an import at normal priority — or even at niceness 10 — made a busy server
 * fall hundreds of milliseconds behind; under SCHED_IDLE it kept its latency.
 */
export type ImportPriority = "idle" | "low" | "normal";

export const IMPORT_PRIORITIES: readonly ImportPriority[] = ["idle", "low", "normal"];

const SCHED_IDLE = 5;
/** How much nicer than the thread it starts on a `low` import runs. */
const LOW_NICENESS_STEPS = 10;
const NICEST = 19;

/** sched_setscheduler(0, SCHED_IDLE) through libc; false when the platform has no such call. */
function scheduleIdle(): boolean {
  if (process.platform !== "linux") return false;
  try {
    // Loaded only here: nothing else needs FFI.
    const { dlopen, FFIType, ptr } = require("bun:ffi") as typeof import("bun:ffi");
    const libc = dlopen("libc.so.6", { sched_setscheduler: { args: [FFIType.i32, FFIType.i32, FFIType.ptr], returns: FFIType.i32 } });
    try {
      // pid 0 = the calling thread; threads it starts afterwards (the parse workers) inherit it.
      return libc.symbols.sched_setscheduler(0, SCHED_IDLE, ptr(new Int32Array([0]))) === 0;
    } finally {
      libc.close();
    }
  } catch {
    return false;
  }
}

/**
 * Lowers the calling thread's CPU priority for an import (threads started afterwards — the
 * parse workers — inherit it; the serving thread of the same process keeps its own). Where a
 * policy is not available it falls back to the next lower step: idle → niceness 19.
 *
 * @example runAtImportPriority("idle"); await importPaths({ … })
 */
export function runAtImportPriority(priority: ImportPriority = "idle"): void {
  if (priority === "normal") return;
  if (priority === "idle" && scheduleIdle()) return;
  try {
    setPriority(priority === "idle" ? NICEST : Math.min(NICEST, getPriority() + LOW_NICENESS_STEPS));
  } catch {
    // Not permitted here: keep the current priority.
  }
}
