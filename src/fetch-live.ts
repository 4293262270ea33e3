import { join } from "node:path";
import { PRICES_FILE } from "./db/open.ts";
import type { Settings } from "./config.ts";
import type { Databases } from "./db/open.ts";
import type { Registry } from "./registry.ts";
import { log } from "./log.ts";
import { fetchChains } from "./ingest/sources/fetch-chains.ts";
import { loadSourcesFile } from "./ingest/sources/overrides.ts";
import { runImportInWorker } from "./ingest/run-in-worker.ts";

/**
 * `serve` in live mode: fetches today's files of every active chain, then imports the downloads
 * as live data in a worker (the serving thread never parses or writes).
 */
export async function fetchLiveData({ settings, db, registry }: { settings: Settings; db: Databases; registry: Registry }): Promise<void> {
  const sourcesOverride = settings.sourcesFile ? loadSourcesFile(settings.sourcesFile) : undefined;
  const report = await fetchChains({ db: db.prices, registry, dataDir: settings.dataDir, sourcesOverride });
  const failed = report.chains.filter((c) => c.status === "failed").map((c) => c.slug);
  log.info("fetch: done", { date: report.date, files: report.files.length, failed });
  if (report.files.length === 0) return;
  const imported = await runImportInWorker({
    dbPath: join(settings.dataDir, PRICES_FILE),
    paths: report.files,
    origin: "fetch",
    source: "live",
    registry: registry.chains,
  });
  log.info("fetch: imported", { status: imported.status, files: imported.totals.files, rows: imported.totals.rows, data_version: imported.dataVersion });
}
