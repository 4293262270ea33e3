import type { Database } from "bun:sqlite";
import { STALE_AFTER_MS } from "../../modules/chains/model.ts";
import type { Registry } from "../../registry.ts";

/** One chain's freshness as the operator reads it (`mehir status`, metrics, the stale warning). */
export interface ChainFreshness {
  chain: string;
  name_en: string | null;
  /**
   * blocked / failing: the portal's last attempt (the portal side wins, as in GET /api/v1/chains/);
   * else stale (newest imported data older than 36 h), ok, or no_data (nothing imported yet).
   */
  status: "ok" | "stale" | "failing" | "blocked" | "no_data";
  /** Why the chain is not ok, in a sentence; null when it is. */
  status_reason: string | null;
  /** Publication time of the newest file the chain's portal listed. */
  newest_file_at: string | null;
  /** Publication time of the newest file imported for the chain. */
  last_data_at: string | null;
  last_attempt_at: string | null;
  last_success_at: string | null;
  last_error: string | null;
  /** When the collection loop lists the chain next (null outside live mode). */
  next_run_at: string | null;
  /** When the log warned that the chain went stale; null while fresh. */
  stale_warned_at: string | null;
}

interface HealthRow {
  chain_slug: string;
  last_attempt_at: string | null;
  last_success_at: string | null;
  last_data_at: string | null;
  last_error: string | null;
  fetch_status?: string | null;
  status_reason?: string | null;
  newest_file_at?: string | null;
  next_run_at?: string | null;
  stale_warned_at?: string | null;
}

/**
 * Whether a chain's newest imported data is older than STALE_AFTER_MS (36 h, the API's rule).
 * A chain with nothing imported yet is not stale: it reads `no_data`.
 */
export function isStale(lastDataAt: string | null, now: Date): boolean {
  return lastDataAt !== null && now.getTime() - Date.parse(lastDataAt) > STALE_AFTER_MS;
}

/**
 * Per chain, what the data dir knows of its freshness: every active chain of the registry, and
 * any other chain with a health row (an inactive chain fetched before), sorted by slug. Reads
 * `SELECT *` so a data dir of an older schema (no fetch_status yet) still answers.
 *
 * @example chainFreshness(db.prices, registry, new Date()).filter((c) => c.status === "blocked")
 */
export function chainFreshness(db: Database, registry: Registry, now: Date): ChainFreshness[] {
  const rows = db.query("SELECT * FROM chain_health").all() as HealthRow[];
  const health = new Map(rows.map((r) => [r.chain_slug, r]));
  const slugs = new Set([...registry.chains.filter((c) => c.active).map((c) => c.slug), ...health.keys()]);
  return [...slugs].sort().map((slug) => {
    const h = health.get(slug);
    const lastData = h?.last_data_at ?? null;
    const portal = h?.fetch_status === "blocked" || h?.fetch_status === "failing" ? h.fetch_status : null;
    const status: ChainFreshness["status"] = portal ?? (lastData === null ? "no_data" : isStale(lastData, now) ? "stale" : "ok");
    const reason =
      status === "ok"
        ? null
        : status === "blocked" || status === "failing"
          ? (h?.status_reason ?? h?.last_error ?? "the last fetch attempt failed")
          : status === "stale"
            ? `newest data from ${lastData}, older than 36 hours`
            : "nothing imported for the chain yet";
    return {
      chain: slug,
      name_en: registry.bySlug.get(slug)?.name_en ?? null,
      status,
      status_reason: reason,
      newest_file_at: h?.newest_file_at ?? null,
      last_data_at: lastData,
      last_attempt_at: h?.last_attempt_at ?? null,
      last_success_at: h?.last_success_at ?? null,
      last_error: h?.last_error ?? null,
      next_run_at: h?.next_run_at ?? null,
      stale_warned_at: h?.stale_warned_at ?? null,
    };
  });
}
