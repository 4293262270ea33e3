import { ISRAEL_TZ, israelDate, israelLocalToDate } from "../../lib/time.ts";

const DAY_MS = 86_400_000;

/**
 * The next instant at `at` (HH:MM, Israel local time) strictly after `now`; DST-correct.
 * @example nextRunAt("05:30", new Date("2026-11-22T04:00:00Z")).toISOString() // "2026-11-23T03:30:00.000Z"
 */
export function nextRunAt(at: string, now: Date): Date {
  const m = at.match(/^([01]\d|2[0-3]):([0-5]\d)$/);
  if (!m) throw new Error(`schedule: expected HH:MM, got "${at}"`);
  const [y, mo, d] = israelDate(now).split("-").map(Number) as [number, number, number];
  for (let offset = 0; offset <= 2; offset++) {
    const day = new Date(Date.UTC(y, mo - 1, d) + offset * DAY_MS);
    const candidate = israelLocalToDate(day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate(), Number(m[1]), Number(m[2]));
    if (candidate.getTime() > now.getTime()) return candidate;
  }
  throw new Error("schedule: no next run found"); // unreachable
}

/**
 * The next collection run strictly after `now`: each Israel day's runs are at `at`, then every
 * `everyMs` until midnight; none between midnight and `at` (the day's first run is `at`).
 * @example nextCollectionAt("05:30", 1_800_000, new Date("2026-11-22T05:40:00+02:00")).toISOString() // "2026-11-22T04:00:00.000Z" (06:00 Israel)
 */
export function nextCollectionAt(at: string, everyMs: number, now: Date): Date {
  if (!(everyMs > 0)) throw new Error(`schedule: expected a positive interval, got ${everyMs}`);
  const today = israelDate(now);
  const [y, mo, d] = today.split("-").map(Number) as [number, number, number];
  const [hh, mm] = at.split(":").map(Number) as [number, number];
  const first = israelLocalToDate(y, mo, d, hh, mm);
  if (now.getTime() < first.getTime()) return first;
  const candidate = new Date(first.getTime() + (Math.floor((now.getTime() - first.getTime()) / everyMs) + 1) * everyMs);
  return israelDate(candidate) === today ? candidate : nextRunAt(at, now);
}

/**
 * True when the newest data is older than a day (or there is none): a live start should fetch
 * at once instead of waiting for the daily time.
 * @example needsCatchUp("2026-11-20T05:30:00+02:00", new Date("2026-11-22T06:00:00+02:00")) // true
 */
export function needsCatchUp(lastDataAt: string | null | undefined, now: Date): boolean {
  if (!lastDataAt) return true;
  const last = Date.parse(lastDataAt);
  if (Number.isNaN(last)) return true;
  return now.getTime() - last > DAY_MS;
}

export interface DailyFetchOptions {
  /** HH:MM, Israel local time. */
  at: string;
  /** Also every this many ms after `at` until midnight (the collection loop; see nextCollectionAt). */
  everyMs?: number;
  /** Only Asia/Jerusalem is supported: the files' and the API's clock. */
  timezone?: typeof ISRAEL_TZ;
  run: () => Promise<void>;
  now?: () => Date;
  /** Called when a run throws (the schedule continues). */
  onError?: (error: unknown) => void;
  /** Timer functions, replaceable in tests. */
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
}

/** Longest single timer: the schedule re-checks the clock at least this often (suspend, clock changes). */
export const MAX_TIMER_MS = 3_600_000;

/**
 * Runs `run` every day at `at` Israel time until stopped. A run still going at the next time
 * is not started twice; a failing run is reported to `onError` and the schedule continues.
 * Timers are at most MAX_TIMER_MS long and the clock is read again when one fires, so a timer
 * firing a little early, a suspended machine or a changed clock neither skips nor repeats a day.
 *
 * @example const daily = startDailyFetch({ at: "05:30", run: fetchAndImport }); … daily.stop();
 */
export function startDailyFetch(options: DailyFetchOptions): { stop(): void; readonly nextAt: Date | null } {
  if (options.timezone && options.timezone !== ISRAEL_TZ) throw new Error(`schedule: only ${ISRAEL_TZ} is supported`);
  const now = options.now ?? (() => new Date());
  const setTimer = options.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
  const clearTimer = options.clearTimer ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));
  let handle: unknown = null;
  const next = (after: Date) => (options.everyMs ? nextCollectionAt(options.at, options.everyMs, after) : nextRunAt(options.at, after));
  let nextAt: Date | null = next(now());
  let stopped = false;
  let running = false;

  const arm = () => {
    if (stopped || !nextAt) return;
    handle = setTimer(wake, Math.min(MAX_TIMER_MS, Math.max(0, nextAt.getTime() - now().getTime())));
  };
  const wake = () => {
    if (stopped || !nextAt) return;
    if (now().getTime() < nextAt.getTime()) return arm(); // early, or a long wait in steps
    // The next run is the one after this due time, however early or late this wake is.
    nextAt = next(new Date(Math.max(now().getTime(), nextAt.getTime())));
    if (!running) {
      running = true;
      options
        .run()
        .catch((error) => options.onError?.(error))
        .finally(() => {
          running = false;
        });
    }
    arm();
  };
  arm();
  return {
    stop() {
      stopped = true;
      if (handle !== null) clearTimer(handle);
      handle = null;
      nextAt = null;
    },
    get nextAt() {
      return nextAt;
    },
  };
}
