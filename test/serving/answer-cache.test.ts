import { describe, expect, test } from "bun:test";
import type { AnswerSource } from "../../src/serving/answer-cache.ts";
import { AnswerCache } from "../../src/serving/answer-cache.ts";
import { ColdBudget } from "../../src/serving/cold-budget.ts";
import { Revalidator } from "../../src/serving/revalidator.ts";
import type { DataSnapshot } from "../../src/data/data-state.ts";

describe("ColdBudget", () => {
  test("counts the last second of cold work in 100 ms buckets", () => {
    let now = 0;
    const budget = new ColdBudget(250, () => now);
    budget.spend(100);
    now = 500;
    budget.spend(100);
    expect(budget.spent()).toBe(200);
    now = 1050; // the first 100 ms of work is over a second old
    expect(budget.spent()).toBe(100);
    now = 5000;
    expect(budget.spent()).toBe(0);
  });

  test("paces cold work at its rate (250 ms a second: 1 ms every 4 ms), in bursts of 10 ms at most", () => {
    let now = 0;
    const budget = new ColdBudget(250, () => now);
    // Back to back from rest: 10 ms of work, then it waits.
    let ran = 0;
    while (budget.available()) {
      budget.spend(1);
      ran++;
    }
    expect(ran).toBe(10);
    // Over the next second: one more millisecond of work every 4 ms, never more.
    let longestRun = 0;
    let run = 0;
    for (now = 0; now < 1000; now += 0.5) {
      if (budget.available()) {
        budget.spend(1);
        ran++;
        run++;
        longestRun = Math.max(longestRun, run);
      } else run = 0;
    }
    expect(ran).toBeGreaterThanOrEqual(258);
    expect(ran).toBeLessThanOrEqual(261);
    expect(longestRun).toBe(1);
    // Work that overran its share is repaid first (200 ms over: 0.8 s without cold work)...
    budget.spend(200);
    now += 700;
    expect(budget.available()).toBe(false);
    now += 150;
    expect(budget.available()).toBe(true);
    // ...but never more than a second's budget, however long the overrun.
    budget.spend(60_000);
    now += 1001;
    expect(budget.available()).toBe(true);
    // After a quiet while: a burst of 10 ms again, not the idle time's worth.
    now += 10_000;
    ran = 0;
    while (budget.available()) {
      budget.spend(1);
      ran++;
    }
    expect(ran).toBe(10);
  });

  test("on a busy thread the budget follows the thread's busy time: at most what warm work leaves of 65 %, less while the thread is over 65 %", () => {
    let now = 10_000;
    let thread = 0;
    const budget = new ColdBudget(250, () => now, () => thread);
    /** `buckets` × 100 ms of thread time: `busy` ms per 100 ms, of which `cold` ms measured as cold work. */
    const run = (busy: number, cold = 0, buckets = 10) => {
      for (let i = 0; i < buckets; i++) {
        now += 100;
        thread += busy;
        if (cold > 0) budget.spend(cold);
        else budget.spent();
      }
    };
    expect(budget.allowed()).toBe(250); // nothing known yet: the whole budget
    run(20); // 20 % busy: 650 - 200 leaves more than the whole budget
    expect(budget.allowed()).toBe(250);
    run(50); // warm answers keep the thread 50 % busy: capped at 650 - 500
    expect(budget.allowed()).toBeCloseTo(150, 0);
    // An import's switch: the cold work's full cost is twice what is measured (15 ms measured, 30 in
    // all, per 100 ms): the thread goes over 65 %, and the budget comes down within a second.
    run(95, 15, 2);
    const early = budget.allowed();
    expect(early).toBeLessThan(150);
    run(95, 15, 5);
    expect(budget.allowed()).toBeLessThan(early);
    expect(budget.allowed()).toBe(20); // the floor
    budget.spend(25);
    expect(budget.available()).toBe(false);
    // Warm work alone at 85 %: the floor, however long.
    run(85, 0, 20);
    expect(budget.allowed()).toBe(20);
    // The thread calms down to 30 %: the budget grows back.
    run(30, 0, 20);
    expect(budget.allowed()).toBe(250);
    now += 5_000; // a quiet pause: the whole budget at once
    thread += 10;
    expect(budget.allowed()).toBe(250);
  });
});

/** Just what AnswerCache reads of the app's dependencies. */
function fakeDeps(snapshot: DataSnapshot, now = 1_000_000) {
  const state = { snapshot, now };
  const deps: AnswerSource = { data: { get current() { return state.snapshot; } }, now: () => new Date(state.now) };
  return { deps, state };
}

const v1: DataSnapshot = { version: 1, updatedAt: "2026-11-22T05:00:00+02:00", source: "live" };
const v2: DataSnapshot = { version: 2, updatedAt: "2026-11-23T05:00:00+02:00", source: "live" };

describe("AnswerCache", () => {
  test("with budget to spare, a new data version's answers are computed fresh", () => {
    const budget = new ColdBudget(1_000_000);
    const cache = new AnswerCache<string>(100, budget, new Revalidator(budget));
    const { deps, state } = fakeDeps(v1);
    let computed = 0;
    const compute = () => ({ value: `answer ${state.snapshot.version} #${++computed}`, validUntil: Infinity, weight: 1 });
    expect(cache.get(deps, "k", compute)).toEqual({ value: "answer 1 #1", snapshot: v1, stale: false });
    expect(cache.get(deps, "k", compute).value).toBe("answer 1 #1"); // cached
    state.snapshot = v2;
    expect(cache.get(deps, "k", compute)).toEqual({ value: "answer 2 #2", snapshot: v2, stale: false });
  });

  test("over budget, the previous version's answer is served, labelled with its version, and recomputed in the background", async () => {
    let clock = 0;
    const budget = new ColdBudget(250, () => clock);
    const background = new Revalidator(budget, 4, 1);
    const cache = new AnswerCache<string>(100, budget, background);
    const { deps, state } = fakeDeps(v1);
    const compute = () => ({ value: `answer ${state.snapshot.version}`, validUntil: Infinity, weight: 1 });
    cache.get(deps, "k", compute);
    state.snapshot = v2;
    budget.spend(300); // the thread just spent its cold budget
    const served = cache.get(deps, "k", compute);
    expect(served).toEqual({ value: "answer 1", snapshot: v1, stale: true });
    // A key never answered before has no previous answer: computed now, over budget or not.
    expect(cache.get(deps, "new", compute)).toEqual({ value: "answer 2", snapshot: v2, stale: false });
    clock = 2_000; // a second later the budget is free again
    await background.idle();
    expect(cache.get(deps, "k", compute)).toEqual({ value: "answer 2", snapshot: v2, stale: false });
  });

  test("two generations in a row (new data, then the rebuilt search index): the older answers still stand in", () => {
    const budget = new ColdBudget(250, () => 0);
    const cache = new AnswerCache<string>(100, budget, new Revalidator(budget));
    const { deps } = fakeDeps(v1);
    let generation = 1;
    const compute = () => ({ value: `answer of generation ${generation}`, validUntil: Infinity, weight: 1 });
    cache.get(deps, "q", compute, () => generation);
    expect(cache.counts).toEqual({ hit: 0, stale: 0, computed: 1 });
    budget.spend(1_000); // over budget from here on
    generation = 2; // new data: another question is answered (no earlier answer to stand in)
    cache.get(deps, "other", compute, () => generation);
    generation = 3; // the index was rebuilt before "q" was asked again
    expect(cache.get(deps, "q", compute, () => generation)).toEqual({ value: "answer of generation 1", snapshot: v1, stale: true });
    generation = 4;
    expect(cache.get(deps, "other", compute, () => generation).stale).toBe(true); // generation 2's, one back
    generation = 5; // two more generations: answers of generation 1 are gone
    expect(cache.get(deps, "q", compute, () => generation)).toEqual({ value: "answer of generation 5", snapshot: v1, stale: false });
    expect(cache.get(deps, "q", compute, () => generation).stale).toBe(false);
    expect(cache.counts).toEqual({ hit: 1, stale: 2, computed: 3 });
  });

  test("a previous answer is never served past its own validity or ten minutes after the switch", () => {
    const budget = new ColdBudget(250, () => 0);
    const cache = new AnswerCache<string>(100, budget, new Revalidator(budget));
    const { deps, state } = fakeDeps(v1, 1_000_000);
    const version = () => state.snapshot.version;
    cache.get(deps, "short", () => ({ value: `short ${version()}`, validUntil: 1_000_500, weight: 1 }));
    cache.get(deps, "long", () => ({ value: `long ${version()}`, validUntil: Infinity, weight: 1 }));
    state.snapshot = v2;
    budget.spend(1_000); // over budget for the whole test
    state.now = 1_000_600; // "short" held until 1_000_500 (a promotion ended)
    expect(cache.get(deps, "short", () => ({ value: `short ${version()}`, validUntil: Infinity, weight: 1 })).value).toBe("short 2");
    expect(cache.get(deps, "long", () => ({ value: `long ${version()}`, validUntil: Infinity, weight: 1 })).stale).toBe(true);
    state.now = 1_000_000 + 11 * 60_000;
    const late = cache.get(deps, "long", () => ({ value: `long ${version()}`, validUntil: Infinity, weight: 1 }));
    expect(late).toMatchObject({ value: "long 2", stale: false });
  });
});

describe("LoadMeter", () => {
  test("requests over the last second", async () => {
    const { LoadMeter } = await import("../../src/serving/load-meter.ts");
    let now = 0;
    const meter = new LoadMeter(() => now);
    for (let i = 0; i < 300; i++) meter.note();
    now = 950;
    meter.note();
    expect(meter.perSecond()).toBe(301);
    now = 1_050; // the first bucket has left the second
    expect(meter.perSecond()).toBe(1);
    now = 10_000;
    expect(meter.perSecond()).toBe(0);
  });
});

describe("backgroundPace", () => {
  test("a quiet server is not paced; a busy one waits while the cold budget is spent", async () => {
    const { backgroundPace } = await import("../../src/serving/background-pace.ts");
    const { LoadMeter } = await import("../../src/serving/load-meter.ts");
    const { ColdBudget, threadCpuMs } = await import("../../src/serving/cold-budget.ts");
    const pacing = { coldBudget: new ColdBudget(250, () => performance.now(), threadCpuMs), loadMeter: new LoadMeter() };
    const pace = backgroundPace(pacing);
    for (let i = 0; i < 30; i++) await pace(10); // 300 ms of "work" reported while quiet
    expect(pacing.coldBudget.spent()).toBe(0); // not counted, so never waited for

    for (let i = 0; i < 500; i++) pacing.loadMeter.note(); // 500 requests this second: busy
    pacing.coldBudget.spend(300); // background work took its quarter already
    const started = performance.now();
    await pace(10);
    // It waited until the budget's second had passed (the meter, too, then says quiet).
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);
  });
});

describe("AnswerCache.held (the batch's lookups)", () => {
  test("gives the current data's held answers and counts them as hits; a miss computes nothing; never a previous version's answer", () => {
    const budget = new ColdBudget(250, () => 0);
    const cache = new AnswerCache<string>(100, budget, new Revalidator(budget));
    const { deps, state } = fakeDeps(v1);
    const compute = () => ({ value: `answer ${state.snapshot.version}`, validUntil: state.now + 10, weight: 1 });
    cache.get(deps, "k", compute);
    const held = cache.held(deps);
    expect(held("k")).toEqual({ value: "answer 1", snapshot: v1 });
    expect(held("other")).toBeUndefined();
    expect(cache.counts).toEqual({ hit: 1, stale: 0, computed: 1 });
    // After validUntil: gone, as for get.
    state.now += 10;
    expect(cache.held(deps)("k")).toBeUndefined();
    // A new data version over budget: get would serve the previous answer as stale; held does not.
    cache.get(deps, "k", compute);
    state.snapshot = v2;
    budget.spend(300);
    expect(cache.held(deps)("k")).toBeUndefined();
    expect(cache.get(deps, "k", compute)).toEqual({ value: "answer 1", snapshot: v1, stale: true });
  });
});

describe("AnswerCache.heldAt (GET /prices/'s lookup by group and member)", () => {
  test("the answer filed under the group and member for the current data, counted as a hit; else undefined and nothing computed", () => {
    const budget = new ColdBudget(250, () => 0);
    const fileUnder = (key: string) => (key.startsWith("g:") ? { group: "g", member: key.slice(2) } : undefined);
    const cache = new AnswerCache<string>(100, budget, new Revalidator(budget), "test", fileUnder);
    const { deps, state } = fakeDeps(v1);
    const compute = () => ({ value: `answer ${state.snapshot.version}`, validUntil: state.now + 10, weight: 1 });
    cache.get(deps, "g:a", compute);
    cache.get(deps, "b", compute);
    expect(cache.heldAt(deps, "g", "a")).toEqual({ value: "answer 1", snapshot: v1 });
    expect(cache.heldAt(deps, "g", "b")).toBeUndefined(); // "b" is held by its key alone
    expect(cache.heldAt(deps, "other", "a")).toBeUndefined();
    expect(cache.counts).toEqual({ hit: 1, stale: 0, computed: 2 });
    // After validUntil: gone, as for get.
    state.now += 10;
    expect(cache.heldAt(deps, "g", "a")).toBeUndefined();
    // A new data version over budget: get would serve the previous answer as stale; heldAt does not.
    cache.get(deps, "g:a", compute);
    state.snapshot = v2;
    budget.spend(300);
    expect(cache.heldAt(deps, "g", "a")).toBeUndefined();
    expect(cache.get(deps, "g:a", compute)).toEqual({ value: "answer 1", snapshot: v1, stale: true });
    expect(cache.counts).toEqual({ hit: 1, stale: 1, computed: 3 });
  });

  test("members named by digits (barcodes, held by their number) and by other text are found alike", () => {
    const budget = new ColdBudget(250, () => 0);
    const fileUnder = (key: string) => ({ group: "g", member: key });
    const cache = new AnswerCache<string>(100, budget, new Revalidator(budget), "test", fileUnder);
    const { deps } = fakeDeps(v1);
    const names = ["7290000066318", "555", "0555", "1".repeat(15), "1".repeat(16), "g-tomatoes"];
    for (const name of names) cache.get(deps, name, () => ({ value: `answer ${name}`, validUntil: Infinity, weight: 1 }));
    for (const name of names) expect(cache.heldAt(deps, "g", name)?.value).toBe(`answer ${name}`);
    expect(cache.heldAt(deps, "g", "7290000066319")).toBeUndefined();
    expect(cache.counts.hit).toBe(names.length);
  });
});

describe("AnswerCache.heldEntriesIn (the batch's lookups by group and member)", () => {
  test("the cache's entries for the current data, counted as hits, with a derived value kept on the entry until it is replaced or the version changes", () => {
    const budget = new ColdBudget(250, () => 0);
    const fileUnder = (key: string) => (key.startsWith("g:") ? { group: "g", member: key.slice(2) } : undefined);
    const cache = new AnswerCache<string>(100, budget, new Revalidator(budget), "test", fileUnder);
    const { deps, state } = fakeDeps(v1);
    let made = 0;
    const compute = () => ({ value: `answer ${++made}`, validUntil: state.now + 10, weight: 1 });
    const derive = (entry: { value: { value: string }; derived: unknown }) => (entry.derived ??= `derived from ${entry.value.value}`);
    cache.get(deps, "g:7290000066318", compute);
    cache.get(deps, "b", compute);
    const held = cache.heldEntriesIn(deps, "g");
    const entry = held("7290000066318")!;
    expect(entry.value).toEqual({ value: "answer 1", snapshot: v1 });
    expect(derive(entry)).toBe("derived from answer 1");
    expect(held("7290000066318")!.derived).toBe("derived from answer 1"); // the same entry, its derived value kept
    expect([held("b"), held("0"), cache.heldEntriesIn(deps, "other")("7290000066318")]).toEqual([undefined, undefined, undefined]);
    expect(cache.counts).toEqual({ hit: 2, stale: 0, computed: 2 });
    // Past validUntil: gone; computed again, a new entry without the old derived value.
    state.now += 10;
    expect(cache.heldEntriesIn(deps, "g")("7290000066318")).toBeUndefined();
    cache.get(deps, "g:7290000066318", compute);
    expect(derive(cache.heldEntriesIn(deps, "g")("7290000066318")!)).toBe("derived from answer 3");
    // A new data version: nothing held for it (a previous version's answer is get's to give).
    state.snapshot = v2;
    expect(cache.heldEntriesIn(deps, "g")("7290000066318")).toBeUndefined();
  });
});
