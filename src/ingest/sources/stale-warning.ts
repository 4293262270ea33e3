import type { Database } from "bun:sqlite";
import { toIsraelIso } from "../../lib/time.ts";
import { isStale } from "./freshness.ts";
import type { SourceLog } from "./types.ts";

interface Row {
  chain_slug: string;
  last_data_at: string | null;
  stale_warned_at: string | null;
  status_reason: string | null;
  last_error: string | null;
}

/**
 * Warns once per staleness: a chain of `slugs` whose newest imported data is older than 36 h
 * gets one warning line ("fetch: chain is stale") and chain_health.stale_warned_at; while it
 * stays stale no further line; once fresh again the mark is cleared (and an info line says so),
 * so the next staleness warns again. Returns the slugs warned now.
 *
 * @example warnStaleChains(db, ["shufersal"], new Date(), log) // ["shufersal"] the first time
 */
export function warnStaleChains(db: Database, slugs: string[], now: Date, log: SourceLog): string[] {
  const read = db.prepare("SELECT chain_slug, last_data_at, stale_warned_at, status_reason, last_error FROM chain_health WHERE chain_slug = ?");
  const mark = db.prepare("UPDATE chain_health SET stale_warned_at = ? WHERE chain_slug = ?");
  const warned: string[] = [];
  for (const slug of slugs) {
    const row = read.get(slug) as Row | null;
    if (!row) continue;
    const stale = isStale(row.last_data_at, now);
    if (stale && row.stale_warned_at === null) {
      const hours = Math.floor((now.getTime() - Date.parse(row.last_data_at!)) / 3600_000);
      log("warn", "fetch: chain is stale", { chain: slug, newest_data_at: row.last_data_at, age_hours: hours, reason: row.status_reason ?? row.last_error });
      mark.run(toIsraelIso(now), slug);
      warned.push(slug);
    } else if (!stale && row.stale_warned_at !== null) {
      log("info", "fetch: chain fresh again", { chain: slug, newest_data_at: row.last_data_at });
      mark.run(null, slug);
    }
  }
  return warned;
}
