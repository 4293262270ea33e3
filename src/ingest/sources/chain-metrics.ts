import type { Database } from "bun:sqlite";
import { header, sample } from "../../lib/prometheus.ts";
import { isStale } from "./freshness.ts";

interface Row {
  chain_slug: string;
  last_attempt_at: string | null;
  last_success_at: string | null;
  last_data_at: string | null;
  fetch_status?: string | null;
  newest_file_at?: string | null;
  next_run_at?: string | null;
}

const FETCH_STATUSES = ["ok", "failing", "blocked"] as const;
const seconds = (iso: string): number => Date.parse(iso) / 1000;

/**
 * The collection's figures per chain, read from chain_health at scrape time: the portal's
 * status (one series per status, 1 for the chain's current one), when the newest file was
 * published and its age, the last attempt, the last success, the next run, and whether the
 * chain is stale (newest imported data older than 36 h). Chains never fetched have no series.
 */
export function chainFetchMetrics(db: Database, now: Date): string {
  const rows = db.query("SELECT * FROM chain_health ORDER BY chain_slug").all() as Row[];
  const nowS = now.getTime() / 1000;
  const fetched = rows.filter((r) => r.fetch_status);
  let out = header("mehir_chain_fetch_status", "gauge", "The portal's side of the chain after its last fetch attempt: 1 for the status it is in (ok, failing, blocked), 0 for the others");
  for (const r of fetched) for (const status of FETCH_STATUSES) out += sample("mehir_chain_fetch_status", { chain: r.chain_slug, status }, r.fetch_status === status ? 1 : 0);

  const timestamps: [string, keyof Row, string][] = [
    ["mehir_chain_newest_file_timestamp_seconds", "newest_file_at", "Publication time of the newest file the chain's portal listed, Unix time"],
    ["mehir_chain_last_attempt_timestamp_seconds", "last_attempt_at", "When the chain's portal was last tried, Unix time"],
    ["mehir_chain_last_success_timestamp_seconds", "last_success_at", "When a fetch of the chain last succeeded (ok or partial), Unix time"],
    ["mehir_chain_next_run_timestamp_seconds", "next_run_at", "When the collection loop lists the chain next, Unix time"],
  ];
  for (const [name, column, help] of timestamps) {
    out += header(name, "gauge", help);
    for (const r of rows) if (r[column]) out += sample(name, { chain: r.chain_slug }, seconds(r[column]!));
  }
  out += header("mehir_chain_newest_file_age_seconds", "gauge", "Age of the newest file the chain's portal listed: how late the chain's publication is");
  for (const r of rows) if (r.newest_file_at) out += sample("mehir_chain_newest_file_age_seconds", { chain: r.chain_slug }, Math.max(0, nowS - seconds(r.newest_file_at)));
  out += header("mehir_chain_stale", "gauge", "1 when the chain's newest imported data is older than 36 h (the API's stale), else 0");
  for (const r of rows) if (r.last_data_at) out += sample("mehir_chain_stale", { chain: r.chain_slug }, isStale(r.last_data_at, now) ? 1 : 0);
  return out;
}
