import type { Database } from "bun:sqlite";
import { israelDate, toIsraelIso } from "../../lib/time.ts";
import { addDays, type ChainFetchResult, type FetchReport } from "./fetch-chains.ts";
import { nextCollectionAt } from "./schedule.ts";
import { warnStaleChains } from "./stale-warning.ts";
import { log as defaultLog } from "../../lib/log.ts";
import type { SourceLog } from "./types.ts";

/** A chain whose day is complete is listed every this many intervals only. */
export const COMPLETE_EVERY_RUNS = 4;
/** A failing or blocked chain waits 1, 2, 4 then at most this many intervals between listings. */
export const MAX_BACKOFF_RUNS = 8;

/** What one run asks the fetch for. */
export interface CollectionPlan {
  /** Israel-local day of the run. */
  date: string;
  /** The chains due now. */
  chains: string[];
  /** Earlier days still to list for a chain (not listed successfully yet). */
  listEarlierDays: (slug: string) => string[];
}

export interface CollectorOptions {
  /** The chains collected (MEHIR_FETCH_CHAINS, default every active chain). */
  chains: string[];
  /** MEHIR_FETCH_AT: the day's first run. */
  at: string;
  /** MEHIR_FETCH_EVERY in ms. */
  everyMs: number;
  /** MEHIR_FETCH_BACKFILL_DAYS. */
  backfillDays: number;
  /** Fetches and imports the plan's chains (fetchAndImport); the fetch report, or null when nothing ran. */
  fetch: (plan: CollectionPlan, onCommitted?: () => void) => Promise<FetchReport | null>;
  /** The prices database: chain_health.next_run_at is written here. */
  db: Database;
  now?: () => Date;
  log?: SourceLog;
}

interface ChainState {
  /** Earliest instant (ms) the chain is listed again. */
  dueAt: number;
  /** The day the chain was found complete (listed less often that day only); null when not. */
  completeOn: string | null;
  /** Failed runs in a row (backoff). */
  failures: number;
  /** Earlier days listed successfully: not listed again. */
  listedDays: Set<string>;
}

/**
 * The collection loop's memory between runs: which chains are due, which earlier days are still
 * to list. Each run lists only the due chains: a chain whose day is complete (every store of it
 * has its PriceFull of the day in, nothing is left to fetch) waits COMPLETE_EVERY_RUNS intervals, that day only
 * (a republication later that day comes within those intervals); a failing or
 * blocked one backs off (1, 2, 4, … MAX_BACKOFF_RUNS intervals); the others are listed every
 * run, so a file published at any time is fetched within one interval of the next run.
 *
 * @example const collector = new Collector({ chains, at: "05:30", everyMs: 1_800_000, backfillDays: 2, fetch, db });
 * await collector.collect(); // the serve loop calls it at every run
 */
export class Collector {
  private readonly state = new Map<string, ChainState>();
  private readonly now: () => Date;

  constructor(private readonly options: CollectorOptions) {
    this.now = options.now ?? (() => new Date());
    for (const slug of options.chains) this.state.set(slug, { dueAt: 0, completeOn: null, failures: 0, listedDays: new Set() });
  }

  /** The chains due at `at` (all on a first run; a new day's first run lists every complete chain again). */
  due(at = this.now()): string[] {
    const today = israelDate(at);
    return [...this.state].filter(([, s]) => s.dueAt <= at.getTime() || (s.completeOn !== null && s.completeOn !== today)).map(([slug]) => slug);
  }

  /**
   * One run: fetches the due chains and plans their next listing, then warns once about each
   * collected chain gone stale (also on a run with no chain due). Null when no chain was due.
   */
  async collect(onCommitted?: () => void): Promise<FetchReport | null> {
    const report = await this.run(onCommitted);
    warnStaleChains(this.options.db, this.options.chains, this.now(), this.options.log ?? ((level, msg, fields) => defaultLog[level](msg, fields)));
    return report;
  }

  private async run(onCommitted?: () => void): Promise<FetchReport | null> {
    const started = this.now();
    const date = israelDate(started);
    const chains = this.due(started);
    if (chains.length === 0) return null;
    const window = Array.from({ length: this.options.backfillDays }, (_, i) => addDays(date, -(this.options.backfillDays - i)));
    const plan: CollectionPlan = {
      date,
      chains,
      listEarlierDays: (slug) => window.filter((d) => !this.state.get(slug)?.listedDays.has(d)),
    };
    const report = await this.options.fetch(plan, onCommitted);
    if (report) for (const result of report.chains) this.plan(result, started, window);
    return report;
  }

  private plan(result: ChainFetchResult, started: Date, window: string[]): void {
    const state = this.state.get(result.slug);
    if (!state) return;
    const every = this.options.everyMs;
    let runs = 1;
    state.completeOn = null;
    if (result.status === "failed" || result.status === "blocked") {
      state.failures++;
      runs = Math.min(MAX_BACKOFF_RUNS, 2 ** (state.failures - 1));
    } else {
      state.failures = 0;
      for (const day of result.days) if (window.includes(day)) state.listedDays.add(day);
      for (const day of state.listedDays) if (!window.includes(day)) state.listedDays.delete(day);
      if (result.dayComplete && result.pending === 0 && result.status === "ok") {
        runs = COMPLETE_EVERY_RUNS;
        state.completeOn = israelDate(started);
      }
    }
    state.dueAt = started.getTime() + runs * every;
    // The run that will list it: the first scheduled run at or after dueAt.
    const nextRun = nextCollectionAt(this.options.at, every, new Date(state.dueAt - 1));
    this.options.db
      .prepare(
        `INSERT INTO chain_health (chain_slug, next_run_at) VALUES (?, ?)
         ON CONFLICT (chain_slug) DO UPDATE SET next_run_at = excluded.next_run_at`,
      )
      .run(result.slug, toIsraelIso(nextRun));
  }
}
