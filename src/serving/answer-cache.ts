import type { Clock, Pacing } from "../deps.ts";
import type { DataSnapshot, SnapshotSource } from "../data/snapshot-source.ts";
import { ResultCache, type HeldEntry } from "./result-cache.ts";
import type { ColdBudget } from "./cold-budget.ts";
import type { Revalidator } from "./revalidator.ts";

/** An answer and the data it was computed on (its meta and ETag name that version). */
export interface Answered<V> {
  value: V;
  snapshot: DataSnapshot;
  /** Computed on an earlier data version than the one now current (being recomputed). */
  stale: boolean;
}

/** What a computation returns: the value, until when it holds, what it weighs in the cache. */
export interface Computed<V> {
  value: V;
  validUntil: number;
  weight: number;
}

/** What an answer is computed on: the data set's snapshot and clock. */
export interface AnswerSource {
  data: Pick<SnapshotSource, "current">;
  now: Clock;
}

/** How long answers of the previous data version may still be served, at most. */
const STALE_FOR_MS = 10 * 60_000;

/**
 * A cache of API answers per data version that degrades gracefully after an import. A new data
 * version empties the cache; on a busy server recomputing every popular answer at once would
 * stall it for seconds. So while cold computations already took their budget of the serving
 * thread (cold-budget.ts), a request whose answer exists for the previous data version gets
 * that answer — consistent, labelled with its own version — and the new one is computed in the
 * background (revalidator.ts). With spare time every answer is computed fresh, as without this.
 * Previous-version answers are never served past their own validity or 10 minutes.
 *
 * @example
 * const cache = AnswerCache.of<string>(pacing, 1000, "example");
 * const { value, snapshot } = cache.get(dataSet, key, () => ({ value: compute(), validUntil: Infinity, weight: 1 }));
 */
export class AnswerCache<V> {
  private current: ResultCache<{ value: V; snapshot: DataSnapshot }>;
  /**
   * Earlier generations' answers, newest first, each until 10 minutes after it was replaced. More
   * than one: search answers change generation twice after an import (new data, then the rebuilt
   * index), and the first of those may have had time to recompute few answers.
   */
  private previous: { cache: ResultCache<{ value: V; snapshot: DataSnapshot }>; until: number }[] = [];
  /** Answers given so far: from the cache, stale (previous generation), computed. */
  readonly counts = { hit: 0, stale: 0, computed: 0 };

  constructor(
    private readonly maxWeight: number,
    private readonly budget: ColdBudget,
    private readonly background: Revalidator,
    /** What the cache is for ("prices", "search", …): its label in /metrics. */
    readonly name = "answers",
    /** Which keys are also filed by group and member, for heldIn (see ResultCache). */
    private readonly fileUnder?: FileUnder,
  ) {
    this.current = new ResultCache(maxWeight, fileUnder);
  }

  /** An answer cache spending the process's cold budget, recomputing with its revalidator. */
  static of<V>(pacing: Pick<Pacing, "coldBudget" | "revalidator">, maxWeight: number, name: string, fileUnder?: FileUnder): AnswerCache<V> {
    return new AnswerCache<V>(maxWeight, pacing.coldBudget, pacing.revalidator, name, fileUnder);
  }

  /**
   * The answer for `key`. `generation` is what answers depend on besides the clock, increasing
   * (default: the data version; search adds its index's version). `allowStale: false` never
   * gives a previous generation's answer (a caller combining several answers that must agree).
   */
  get(deps: AnswerSource, key: string, compute: () => Computed<V>, generation: () => number = () => deps.data.current.version, allowStale = true): Answered<V> {
    const now = deps.now().getTime();
    const gen = generation();
    this.rotate(gen, now);
    const hit = this.current.get(gen, key, now);
    if (hit) {
      this.counts.hit++;
      return { ...hit, stale: false };
    }
    if (allowStale && this.previous.length > 0 && !this.budget.available()) {
      const old = this.peekPrevious(key, now);
      if (old) {
        this.counts.stale++;
        this.background.enqueue(`${this.name}\u0000${key}`, () => void this.computeFresh(deps, key, compute, generation));
        return { ...old, stale: true };
      }
    }
    this.counts.computed++;
    return this.computeFresh(deps, key, compute, generation);
  }

  /**
   * A lookup of the answers held for the current generation, by key, that computes nothing: for a
   * caller asking many keys at once (the batch), the clock is read and the generation checked once
   * for all of them. A hit is counted as get counts it; on a miss (undefined) ask get.
   */
  held(deps: AnswerSource, generation: number = deps.data.current.version): (key: string) => { value: V; snapshot: DataSnapshot } | undefined {
    const now = deps.now().getTime();
    this.rotate(generation, now);
    const current = this.current;
    return (key) => {
      const hit = current.get(generation, key, now);
      if (hit) this.counts.hit++;
      return hit;
    };
  }

  /**
   * held for the keys filed under one group (see fileUnder), by member: no key built per member.
   * On a miss (undefined) ask get with the full key.
   */
  heldIn(deps: AnswerSource, group: string, generation: number = deps.data.current.version): (member: string) => { value: V; snapshot: DataSnapshot } | undefined {
    const now = deps.now().getTime();
    this.rotate(generation, now);
    const member = this.current.member(generation, group, now);
    return (name) => {
      const hit = member(name);
      if (hit) this.counts.hit++;
      return hit;
    };
  }

  /**
   * heldIn giving the cache's entries (HeldEntry: the answer, and a slot for what the caller derives
   * from it, kept with it): for a caller reading one derived thing of many answers at once (the
   * batch reads each /prices/ answer's compressed JSON from its entry). A hit is counted as get
   * counts it; on a miss (undefined) ask get with the full key.
   */
  heldEntriesIn(deps: AnswerSource, group: string, generation: number = deps.data.current.version): (member: string) => HeldEntry<{ value: V; snapshot: DataSnapshot }> | undefined {
    const now = deps.now().getTime();
    this.rotate(generation, now);
    const entries = this.current.memberEntries(generation, group, now);
    return (name) => {
      const hit = entries(name);
      if (hit) this.counts.hit++;
      return hit;
    };
  }

  /**
   * heldIn for one member: the answer held for the current data version under `group` and
   * `member`, or undefined (then ask get with the full key). For a hot single lookup (GET
   * /prices/): no key built and hashed, no function or answer object made on a hit. `at`: the
   * time (epoch ms) when the caller has it; `count` false for a caller that may not serve what it
   * found (it calls countHit when it does: the express lane).
   */
  heldAt(deps: AnswerSource, group: string, member: string, at?: number, count = true): { value: V; snapshot: DataSnapshot } | undefined {
    const generation = deps.data.current.version;
    const now = at ?? deps.now().getTime();
    this.rotate(generation, now);
    const hit = this.current.memberEntry(generation, group, member, now);
    if (hit && count) this.counts.hit++;
    return hit;
  }

  /** Counts an answer served from the cache that a lookup (heldAt with `count` false) did not count. */
  countHit(): void {
    this.counts.hit++;
  }

  /** The current generation's answers held, and their total weight (at most the cache's bound). */
  get holding(): { entries: number; weight: number } {
    return { entries: this.current.size, weight: this.current.heldWeight };
  }

  /** The newest earlier generation's answer still valid, if any. */
  private peekPrevious(key: string, now: number): { value: V; snapshot: DataSnapshot } | undefined {
    for (const { cache, until } of this.previous) {
      if (now >= until) continue;
      const old = cache.peek(key, now);
      if (old) return old;
    }
    return undefined;
  }

  /** Computes and stores the answer for the generation current now. */
  private computeFresh(deps: AnswerSource, key: string, compute: () => Computed<V>, generation: () => number): Answered<V> {
    const snapshot = deps.data.current;
    const now = deps.now().getTime();
    const gen = generation();
    this.rotate(gen, now);
    const existing = this.current.get(gen, key, now);
    if (existing) return { ...existing, stale: false };
    const started = performance.now();
    try {
      const { value, validUntil, weight } = compute();
      this.current.set(gen, key, { value, snapshot }, validUntil, weight);
      return { value, snapshot, stale: false };
    } finally {
      this.budget.spend(performance.now() - started);
    }
  }

  /** On a new generation the current answers become the newest previous ones. */
  private rotate(version: number, now: number): void {
    const held = this.current.version;
    if (held === version) return;
    if (held >= 0 && held < version) {
      this.previous = [{ cache: this.current, until: now + STALE_FOR_MS }, ...this.previous.filter((p) => now < p.until)].slice(0, GENERATIONS_KEPT);
    }
    this.current = new ResultCache(this.maxWeight, this.fileUnder);
    this.current.begin(version);
  }
}

/** A key's group and member, when it is filed under one (see ResultCache's groups). */
type FileUnder = (key: string) => { group: string; member: string } | undefined;

/** Earlier generations kept for stale answers (see `previous`). */
const GENERATIONS_KEPT = 2;
