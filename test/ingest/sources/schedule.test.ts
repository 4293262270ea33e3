import { describe, expect, test } from "bun:test";
import { needsCatchUp, nextRunAt, startDailyFetch } from "../../../src/ingest/sources/schedule.ts";

describe("nextRunAt", () => {
  test("later today, or tomorrow once the time has passed (Israel time, winter and summer)", () => {
    expect(nextRunAt("05:30", new Date("2026-11-22T01:00:00Z")).toISOString()).toBe("2026-11-22T03:30:00.000Z");
    expect(nextRunAt("05:30", new Date("2026-11-22T03:30:00Z")).toISOString()).toBe("2026-11-23T03:30:00.000Z");
    expect(nextRunAt("05:30", new Date("2026-07-01T01:00:00Z")).toISOString()).toBe("2026-07-01T02:30:00.000Z");
    // 23:00 UTC on the 21st is already the 22nd in Israel.
    expect(nextRunAt("00:30", new Date("2026-11-21T23:00:00Z")).toISOString()).toBe("2026-11-22T22:30:00.000Z");
  });

  test("across the spring DST switch (27 Mar 2026)", () => {
    expect(nextRunAt("05:30", new Date("2026-03-26T04:00:00Z")).toISOString()).toBe("2026-03-27T02:30:00.000Z");
  });

  test("rejects a malformed time", () => {
    expect(() => nextRunAt("5:30", new Date())).toThrow();
  });
});

describe("needsCatchUp", () => {
  const now = new Date("2026-11-22T06:00:00+02:00");
  test("no data or data older than a day", () => {
    expect(needsCatchUp(null, now)).toBe(true);
    expect(needsCatchUp("garbage", now)).toBe(true);
    expect(needsCatchUp("2026-11-21T05:59:00+02:00", now)).toBe(true);
    expect(needsCatchUp("2026-11-21T06:30:00+02:00", now)).toBe(false);
  });
});

describe("startDailyFetch", () => {
  test("arms a timer for the next run, runs, re-arms for the next day; stop clears it", async () => {
    let clock = new Date("2026-11-22T01:00:00Z");
    const timers: { fn: () => void; ms: number; cleared: boolean }[] = [];
    let runs = 0;
    const daily = startDailyFetch({
      at: "05:30",
      run: async () => {
        runs++;
      },
      now: () => clock,
      setTimer: (fn, ms) => {
        const t = { fn, ms, cleared: false };
        timers.push(t);
        return t;
      },
      clearTimer: (h) => ((h as { cleared: boolean }).cleared = true),
    });
    expect(timers[0]!.ms).toBe(2.5 * 3600_000);
    clock = new Date("2026-11-22T03:30:00Z");
    timers[0]!.fn();
    await Bun.sleep(0);
    expect(runs).toBe(1);
    expect(timers[1]!.ms).toBe(24 * 3600_000);
    expect(daily.nextAt!.toISOString()).toBe("2026-11-23T03:30:00.000Z");
    daily.stop();
    expect(timers[1]!.cleared).toBe(true);
    timers[1]!.fn();
    expect(runs).toBe(1);
  });

  test("a failing run is reported and the schedule continues; overlapping runs are skipped", async () => {
    const timers: (() => void)[] = [];
    const errors: unknown[] = [];
    let release!: () => void;
    let runs = 0;
    const daily = startDailyFetch({
      at: "05:30",
      run: () => {
        runs++;
        return new Promise<void>((_, reject) => (release = () => reject(new Error("portal down"))));
      },
      onError: (e) => errors.push(e),
      setTimer: (fn) => timers.push(fn),
      clearTimer: () => {},
    });
    timers[0]!();
    timers[1]!(); // the first run is still going
    expect(runs).toBe(1);
    release();
    await Bun.sleep(0);
    expect((errors[0] as Error).message).toBe("portal down");
    expect(timers).toHaveLength(3);
    daily.stop();
  });
});
