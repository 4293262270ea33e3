import type { Timers } from "../../../src/alerts/timers.ts";

/**
 * Timers on a clock moved by hand: `advance(ms)` fires, in order, every timer due by then. The
 * delivery scheduler runs on it so retries hours apart are tested without waiting.
 */
export class ManualTimers implements Timers {
  private at: number;
  private nextId = 1;
  private readonly pending = new Map<number, { due: number; run: () => void }>();

  constructor(start = Date.parse("2026-11-22T10:00:00Z")) {
    this.at = start;
  }

  now(): number {
    return this.at;
  }

  setTimeout(run: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.pending.set(id, { due: this.at + Math.max(0, ms), run });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  /** Moves the clock forward, firing due timers (including ones they set that fall due meanwhile). */
  advance(ms: number): void {
    const end = this.at + ms;
    for (;;) {
      let next: [number, { due: number; run: () => void }] | null = null;
      for (const entry of this.pending) if (entry[1].due <= end && (!next || entry[1].due < next[1].due)) next = entry;
      if (!next) break;
      this.pending.delete(next[0]);
      this.at = Math.max(this.at, next[1].due);
      next[1].run();
    }
    this.at = end;
  }

  /** When the earliest timer is due; null when none is set. */
  nextDue(): number | null {
    let min: number | null = null;
    for (const t of this.pending.values()) if (min === null || t.due < min) min = t.due;
    return min;
  }
}
