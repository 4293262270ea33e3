import type { SnapshotSource } from "../data/snapshot-source.ts";
import { stmt } from "../db/statements.ts";
import { israelDate, israelLocalToDate } from "../lib/time.ts";
import { STALE_AFTER_MS } from "../modules/chains/model.ts";

/** The start of the Israel calendar day after the one `at` falls in, epoch ms. */
export function nextIsraelMidnight(at: number): number {
  const [y, m, d] = israelDate(new Date(at)).split("-").map(Number) as [number, number, number];
  const next = new Date(Date.UTC(y, m - 1, d + 1));
  return israelLocalToDate(next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate()).getTime();
}

/**
 * What an ETag must follow besides the data version: API answers also change with the clock
 * within one data version — a promotion starts or ends (effective prices, the feed, the
 * catalog's promotion flag), the Israel date moves on (the history window), a chain turns
 * stale 36 h after its newest data (/chains/). A 304 for an ETag made before such an instant
 * would confirm an answer that is no longer true, so the tag hashes the epoch in: the Israel date
 * and how many of those instants of the current data version have passed.
 *
 * The instants are read once per data version; per request the epoch is a comparison (until
 * the next instant) or a binary search.
 *
 * One per data set (createServices builds it).
 *
 * @example dataSet.epoch.at(Date.now()) // "20261122.17" (17 instants of this data version passed)
 */
export class AnswerEpoch {
  private version = -1;
  /** Sorted, distinct instants (epoch ms) at which answers of this data version may change. */
  private instants = new Float64Array(0);
  private current = "";
  private validFrom = Infinity;
  private validUntil = -Infinity;

  constructor(private readonly source: SnapshotSource) {}

  at(now: number): string {
    const version = this.source.current.version;
    if (version !== this.version) this.load(version);
    else if (now >= this.validFrom && now < this.validUntil) return this.current;
    const passed = upperBound(this.instants, now);
    const day = israelDate(new Date(now));
    const midnight = nextIsraelMidnight(now);
    const dayStart = nextIsraelMidnight(midnight - 36 * 3600_000);
    this.validFrom = Math.max(passed > 0 ? this.instants[passed - 1]! : -Infinity, dayStart);
    this.validUntil = Math.min(passed < this.instants.length ? this.instants[passed]! : Infinity, midnight);
    this.current = `${day.replaceAll("-", "")}.${passed}`;
    return this.current;
  }

  private load(version: number): void {
    const db = this.source.db;
    const times = stmt(
      db,
      `SELECT starts_at AS t FROM promotions WHERE starts_at IS NOT NULL
       UNION SELECT ends_at FROM promotions WHERE ends_at IS NOT NULL`,
    ).all() as { t: string }[];
    const stale = stmt(db, "SELECT last_data_at AS t FROM chain_health WHERE last_data_at IS NOT NULL").all() as { t: string }[];
    const instants = new Set<number>();
    for (const { t } of times) {
      const ms = Date.parse(t);
      if (!Number.isNaN(ms)) instants.add(ms);
    }
    for (const { t } of stale) {
      const ms = Date.parse(t);
      // /chains/ says stale once now - last > 36 h: from the millisecond after.
      if (!Number.isNaN(ms)) instants.add(ms + STALE_AFTER_MS + 1);
    }
    this.instants = Float64Array.from(instants).sort();
    this.version = version;
    this.validFrom = Infinity;
    this.validUntil = -Infinity;
  }
}

/** How many values of the sorted array are ≤ x. */
function upperBound(sorted: Float64Array, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
