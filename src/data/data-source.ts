import { durationMs, type Settings } from "../config.ts";
import type { Databases } from "../db/open.ts";
import type { Registry } from "../registry.ts";
import type { DataState } from "./data-state.ts";
import { ensureDemoData } from "../demo/first-start.ts";
import { needsCatchUp, startDailyFetch } from "../ingest/sources/schedule.ts";

type Log = (msg: string, fields?: Record<string, unknown>) => void;

export interface DataSourceDeps {
  settings: Pick<Settings, "source" | "dataDir" | "fetchAt"> & Partial<Pick<Settings, "importPriority" | "fetchEvery">>;
  db: Databases;
  registry: Registry;
  data: DataState;
  /** Live mode: fetches today's files of every active chain and imports them (off this thread);
   *  calls `onCommitted` as soon as the import commits. */
  fetchLive: (onCommitted: () => void) => Promise<void>;
  info: Log;
  error: Log;
  now?: () => Date;
  /** Demo generation options (tests shrink the demo). */
  demo?: { scale?: number; seed?: number; importer?: "worker" | "inline" };
}

export interface RunningDataSource {
  /** Settles when the start-up work (demo import or live catch-up) has finished or failed. */
  ready: Promise<void>;
  stop(): void;
}

/**
 * Keeps the served data current, without ever blocking requests:
 * - `demo` (default): an empty data dir gets the embedded demo dataset, generated and imported
 *   in a worker; later starts reuse the data and do nothing.
 * - `live`: the chains' portals are collected from `fetchAt` (Israel time) every `fetchEvery`
 *   until midnight, each run fetching what is new (src/ingest/sources/collection.ts); at start a
 *   catch-up run fetches at once when the data is older than a day, or is not live data yet (a
 *   first live start fetches instead of generating the demo; the live import replaces demo data).
 * A failure is logged; the data served before it stays served.
 *
 * @example const source = startDataSource({ settings, db, registry, data, fetchLive, info: log.info, error: log.error });
 */
export function startDataSource(deps: DataSourceDeps): RunningDataSource {
  const now = deps.now ?? (() => new Date());
  if (deps.settings.source === "demo") {
    const ready = ensureDemoData({
      db: deps.db.prices,
      registry: deps.registry,
      dataDir: deps.settings.dataDir,
      source: "demo",
      log: deps.info,
      // Served from the commit on, not from the next poll (up to a second later).
      onCommitted: () => void deps.data.refresh(),
      // No importPriority: nothing is served before the demo is in, so its import runs at normal priority.
      ...deps.demo,
    })
      .then(() => void deps.data.refresh())
      .catch((error) => deps.error("demo: first-start import failed", { error: String(error) }));
    return { ready, stop() {} };
  }

  // One run at a time: a catch-up run still going when the daily time comes is not doubled.
  let running: Promise<void> | null = null;
  const runLive = () =>
    (running ??= (async () => {
      deps.info("fetch: starting", { at: now().toISOString() });
      // Served from the import's commit on (its report and checkpoint come after), not the next poll.
      await deps.fetchLive(() => void deps.data.refresh());
      deps.data.refresh();
    })().finally(() => (running = null)));
  const onError = (error: unknown) => deps.error("fetch: run failed", { error: String((error as Error)?.stack ?? error) });
  const current = deps.data.current;
  const catchUp = current.source !== "live" || needsCatchUp(current.updatedAt, now());
  const ready = catchUp ? runLive().catch(onError) : Promise.resolve();
  // The collection loop: the day's first run at fetchAt, then every fetchEvery until midnight.
  const everyMs = deps.settings.fetchEvery ? durationMs(deps.settings.fetchEvery) : undefined;
  const daily = startDailyFetch({ at: deps.settings.fetchAt, everyMs, run: runLive, onError, now });
  deps.info("fetch: daily schedule", { at: deps.settings.fetchAt, every: deps.settings.fetchEvery ?? null, next_at: daily.nextAt?.toISOString(), catch_up: catchUp });
  return { ready, stop: () => daily.stop() };
}
