import type { Database } from "bun:sqlite";
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { previousDay } from "./listing.ts";

/** Days of downloads kept on disk (a full national day is ~0.5 GB gzipped). */
export const KEEP_DOWNLOAD_DAYS = 7;
/** Days a fetched file is remembered (so a Stores file still listed weeks later is not fetched again). */
export const KEEP_FETCHED_DAYS = 45;

function daysBefore(date: string, days: number): string {
  let d = date;
  for (let i = 0; i < days; i++) d = previousDay(d);
  return d;
}

/**
 * Deletes day folders `<dataDir>/downloads/<slug>/<YYYY-MM-DD>` older than `keepDays` before
 * `today` (their data is in the database already), and forgets fetched files older than
 * `keepFetchedDays`. Returns the folders removed. Anything not named like a day is left alone.
 *
 * @example await pruneDownloads({ db, dataDir: "./mehir-data", today: "2026-11-22" }) // ["…/downloads/shufersal/2026-11-14"]
 */
export async function pruneDownloads(options: { db: Database; dataDir: string; today: string; keepDays?: number; keepFetchedDays?: number }): Promise<string[]> {
  const cutoff = daysBefore(options.today, options.keepDays ?? KEEP_DOWNLOAD_DAYS);
  const root = join(options.dataDir, "downloads");
  const removed: string[] = [];
  const chains = await readdir(root, { withFileTypes: true }).catch(() => []);
  for (const chain of chains) {
    if (!chain.isDirectory()) continue;
    const days = await readdir(join(root, chain.name), { withFileTypes: true }).catch(() => []);
    for (const day of days) {
      if (!day.isDirectory() || !/^\d{4}-\d{2}-\d{2}$/.test(day.name) || day.name >= cutoff) continue;
      const path = join(root, chain.name, day.name);
      await rm(path, { recursive: true, force: true });
      removed.push(path);
    }
  }
  const forgetBefore = daysBefore(options.today, options.keepFetchedDays ?? KEEP_FETCHED_DAYS);
  options.db.run("DELETE FROM fetched_files WHERE substr(fetched_at, 1, 10) < ?", [forgetBefore]);
  return removed;
}
