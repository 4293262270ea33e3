import { describe, expect, test } from "bun:test";
import { MAX_TIMER_MS, needsCatchUp, nextCollectionAt, nextRunAt, startDailyFetch } from "../../../src/ingest/sources/schedule.ts";

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

describe("nextCollectionAt", () => {
  const at = (s: string) => nextCollectionAt("05:30", 30 * 60_000, new Date(s)).toISOString();
  test("the day's first run is MEHIR_FETCH_AT, then every interval until midnight, none before it", () => {
    expect(at("2026-11-22T03:00:00+02:00")).toBe("2026-11-22T03:30:00.000Z"); // 05:30
    expect(at("2026-11-22T05:30:00+02:00")).toBe("2026-11-22T04:00:00.000Z"); // 06:00
    expect(at("2026-11-22T16:59:00+02:00")).toBe("2026-11-22T15:00:00.000Z"); // 17:00
    expect(at("2026-11-22T23:10:00+02:00")).toBe("2026-11-22T21:30:00.000Z"); // 23:30
    expect(at("2026-11-22T23:30:00+02:00")).toBe("2026-11-23T03:30:00.000Z"); // tomorrow 05:30
  });
  test("an interval that does not divide the day, and summer time", () => {
    expect(nextCollectionAt("00:00", 7 * 3_600_000, new Date("2026-11-22T21:00:00+02:00")).toISOString()).toBe("2026-11-22T22:00:00.000Z"); // 00:00 next day
    expect(nextCollectionAt("05:30", 3_600_000, new Date("2026-07-01T06:00:00+03:00")).toISOString()).toBe("2026-07-01T03:30:00.000Z"); // 06:30
  });
  test("startDailyFetch with everyMs runs on those times", async () => {
    let clock = new Date("2026-11-22T05:00:00+02:00").getTime();
    const timers: (() => void)[] = [];
    const runs: string[] = [];
    const loop = startDailyFetch({ at: "05:30", everyMs: 30 * 60_000, now: () => new Date(clock), run: async () => void runs.push(new Date(clock).toISOString()), setTimer: (fn) => timers.push(fn), clearTimer: () => {} });
    for (const t of ["2026-11-22T05:30:00+02:00", "2026-11-22T06:00:00+02:00", "2026-11-22T06:30:00+02:00"]) {
      clock = new Date(t).getTime();
      timers.shift()!();
      await new Promise((settled) => setImmediate(settled)); // the run's promise settles

    }
    loop.stop();
    expect(runs).toEqual(["2026-11-22T03:30:00.000Z", "2026-11-22T04:00:00.000Z", "2026-11-22T04:30:00.000Z"]);
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

/** A fake clock and timer queue: `fire()` advances the clock to the pending timer's due time and runs it. */
function fakeTimers(start: string) {
  let clock = new Date(start);
  const pending: { fn: () => void; at: number; cleared: boolean }[] = [];
  return {
    now: () => clock,
    set: (iso: string) => (clock = new Date(iso)),
    setTimer: (fn: () => void, ms: number) => {
      const t = { fn, at: clock.getTime() + ms, cleared: false };
      pending.push(t);
      return t;
    },
    clearTimer: (h: unknown) => ((h as { cleared: boolean }).cleared = true),
    pending,
    /** Runs the latest timer, at its due time (or at `at`, to fire early or late). */
    fire(at?: string) {
      const t = pending.at(-1)!;
      clock = at ? new Date(at) : new Date(t.at);
      t.fn();
    },
    /** Fires timers until the clock reaches `iso`. */
    until(iso: string) {
      while (pending.at(-1)!.at <= Date.parse(iso)) this.fire();
    },
  };
}

describe("startDailyFetch", () => {
  test("waits in steps of at most an hour, runs at the time, re-arms for the next day; stop clears it", async () => {
    const t = fakeTimers("2026-11-22T01:00:00Z");
    let runs = 0;
    const daily = startDailyFetch({ at: "05:30", run: async () => void runs++, now: t.now, setTimer: t.setTimer, clearTimer: t.clearTimer });
    expect(daily.nextAt!.toISOString()).toBe("2026-11-22T03:30:00.000Z");
    expect(t.pending[0]!.at - Date.parse("2026-11-22T01:00:00Z")).toBe(MAX_TIMER_MS);
    t.until("2026-11-22T03:29:59Z");
    expect(runs).toBe(0);
    t.fire();
    expect(t.now().toISOString()).toBe("2026-11-22T03:30:00.000Z");
    await Bun.sleep(0);
    expect(runs).toBe(1);
    expect(daily.nextAt!.toISOString()).toBe("2026-11-23T03:30:00.000Z");
    t.until("2026-11-23T03:30:00Z");
    await Bun.sleep(0);
    expect(runs).toBe(2);
    daily.stop();
    expect(t.pending.at(-1)!.cleared).toBe(true);
    t.pending.at(-1)!.fn();
    expect(runs).toBe(2);
  });

  test("a timer firing early does not run, and a quick run is not repeated by the next wake", async () => {
    const t = fakeTimers("2026-11-22T03:00:00Z");
    let runs = 0;
    const daily = startDailyFetch({ at: "05:30", run: async () => void runs++, now: t.now, setTimer: t.setTimer, clearTimer: t.clearTimer });
    t.fire("2026-11-22T03:29:59.995Z"); // 5 ms early
    await Bun.sleep(0);
    expect(runs).toBe(0);
    t.fire(); // on time
    await Bun.sleep(0);
    expect(runs).toBe(1);
    t.fire("2026-11-22T03:30:00.010Z"); // a stray early wake right after
    await Bun.sleep(0);
    expect(runs).toBe(1);
    daily.stop();
  });

  test("after a suspend spanning days it runs once, then keeps the daily time", async () => {
    const t = fakeTimers("2026-11-22T03:00:00Z");
    let runs = 0;
    const daily = startDailyFetch({ at: "05:30", run: async () => void runs++, now: t.now, setTimer: t.setTimer, clearTimer: t.clearTimer });
    t.fire("2026-11-25T12:00:00Z");
    await Bun.sleep(0);
    expect(runs).toBe(1);
    expect(daily.nextAt!.toISOString()).toBe("2026-11-26T03:30:00.000Z");
    daily.stop();
  });

  test("a failing run is reported and the schedule continues; overlapping runs are skipped", async () => {
    const t = fakeTimers("2026-11-22T03:29:00Z");
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
      now: t.now,
      setTimer: t.setTimer,
      clearTimer: t.clearTimer,
    });
    t.until("2026-11-23T03:30:00Z"); // the first run is still going at the second due time
    expect(runs).toBe(1);
    release();
    await Bun.sleep(0);
    expect((errors[0] as Error).message).toBe("portal down");
    t.until("2026-11-24T03:30:00Z");
    expect(runs).toBe(2);
    daily.stop();
  });
});
