import { durationMs, fetchChainsOf, type Settings } from "../../config.ts";
import type { Databases } from "../../db/open.ts";
import type { Registry } from "../../registry.ts";
import { archiveLimitsOf } from "../run/collect.ts";
import { Collector } from "./collection.ts";
import { fetchAndImport } from "./fetch-and-import.ts";
import { FetchUsageError } from "./fetch-chains.ts";

type LiveSettings = Pick<
  Settings,
  "dataDir" | "sourcesFile" | "importPriority" | "fetchAt" | "fetchEvery" | "fetchChains" | "fetchBackfillDays" | "userAgent" | "importMaxEntryBytes" | "importMaxArchiveBytes" | "importMaxRunBytes" | "historyMonths"
>;

/**
 * The collector `mehir serve` runs in live mode: MEHIR_FETCH_CHAINS (default every active
 * chain), each run a fetchAndImport of the due chains over today and the backfill days.
 * An unknown slug in MEHIR_FETCH_CHAINS is an error at start, not at the first run.
 *
 * @example const collector = liveCollector(settings, db, registry); await collector.collect(onCommitted);
 */
export function liveCollector(settings: LiveSettings, db: Databases, registry: Registry): Collector {
  const chains = fetchChainsOf(settings) ?? registry.chains.filter((c) => c.active).map((c) => c.slug);
  for (const slug of chains) if (!registry.bySlug.has(slug)) throw new FetchUsageError(`MEHIR_FETCH_CHAINS: unknown chain "${slug}" (see GET /api/v1/chains/ for the slugs)`);
  return new Collector({
    chains,
    at: settings.fetchAt,
    everyMs: durationMs(settings.fetchEvery),
    backfillDays: settings.fetchBackfillDays,
    db: db.prices,
    fetch: async (plan, onCommitted) =>
      (
        await fetchAndImport({
          db: db.prices,
          registry,
          dataDir: settings.dataDir,
          sourcesFile: settings.sourcesFile,
          chains: plan.chains,
          date: plan.date,
          backfillDays: settings.fetchBackfillDays,
          listEarlierDays: plan.listEarlierDays,
          http: settings.userAgent ? { userAgent: settings.userAgent } : undefined,
          importPriority: settings.importPriority,
          archiveLimits: archiveLimitsOf(settings),
          historyMonths: settings.historyMonths,
          onCommitted,
        })
      ).fetch,
  });
}
