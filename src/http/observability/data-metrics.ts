import type { Database } from "bun:sqlite";
import { stmt } from "../../db/statements.ts";
import { header, renderHistogram, sample } from "../../lib/prometheus.ts";

/** Import duration buckets, seconds. */
const IMPORT_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600] as const;

interface RunRow {
  origin: string;
  status: string;
  started_at: string;
  finished_at: string | null;
  /** Measured; null on runs recorded before schema version 3. */
  duration_ms: number | null;
  rows: number;
  files: number;
}

const seconds = (iso: string | null): number => (iso ? Date.parse(iso) / 1000 : NaN);

/** A finished run's duration in seconds: measured, else from its timestamps (whole seconds). */
const runSeconds = (r: RunRow): number => (r.duration_ms !== null ? r.duration_ms / 1000 : seconds(r.finished_at) - seconds(r.started_at));

/**
 * Whether another connection holds the database's write transaction. An import runs as one
 * write transaction (BEGIN IMMEDIATE … COMMIT) from its first to its last file, in whichever
 * process it runs, and records its run only after the commit; so the write lock is what tells,
 * across processes, that one is under way. Probed with BEGIN IMMEDIATE under a zero busy timeout
 * and rolled back at once (other writes in this database are brief bookkeeping).
 */
export function writerActive(db: Database): boolean {
  if (db.inTransaction) return false;
  const saved = (db.query("PRAGMA busy_timeout").get() as { timeout: number } | null)?.timeout ?? 0;
  db.run("PRAGMA busy_timeout = 0");
  try {
    db.run("BEGIN IMMEDIATE");
    db.run("ROLLBACK");
    return false;
  } catch (error) {
    return /SQLITE_BUSY|database is locked/i.test(`${(error as { code?: string }).code ?? ""} ${(error as Error).message}`);
  } finally {
    db.run(`PRAGMA busy_timeout = ${saved}`);
  }
}

/**
 * Import and freshness figures read from the prices database at scrape time: runs and rows by
 * origin and status (from `import_runs`), a histogram of import durations, the last finished
 * run, and per chain the time of its newest data (`chain_health.last_data_at`) and its age.
 */
export function dataMetrics(db: Database, now: Date, data: { version: number; updatedAt: string | null }): string {
  const runs = stmt(db, "SELECT origin, status, started_at, finished_at, duration_ms, rows, files FROM import_runs ORDER BY id").all() as RunRow[];
  let out = "";

  out += header("mehir_import_runs_total", "counter", "Import runs recorded, by origin (cli, demo, fetch, backfill) and status (running, ok, partial, failed)");
  const byOriginStatus = new Map<string, { origin: string; status: string; n: number }>();
  for (const r of runs) {
    const key = `${r.origin}\u0000${r.status}`;
    const e = byOriginStatus.get(key) ?? { origin: r.origin, status: r.status, n: 0 };
    e.n++;
    byOriginStatus.set(key, e);
  }
  for (const e of byOriginStatus.values()) out += sample("mehir_import_runs_total", { origin: e.origin, status: e.status }, e.n);

  const perOrigin = new Map<string, { rows: number; files: number; counts: number[]; sum: number; count: number }>();
  for (const r of runs) {
    if (r.finished_at === null) continue;
    const e = perOrigin.get(r.origin) ?? { rows: 0, files: 0, counts: IMPORT_BUCKETS.map(() => 0), sum: 0, count: 0 };
    e.rows += r.rows;
    e.files += r.files;
    const d = runSeconds(r);
    if (Number.isFinite(d) && d >= 0) {
      const i = IMPORT_BUCKETS.findIndex((b) => d <= b);
      if (i >= 0) e.counts[i]!++;
      e.sum += d;
      e.count++;
    }
    perOrigin.set(r.origin, e);
  }
  out += header("mehir_import_rows_total", "counter", "Rows loaded by finished import runs, by origin");
  for (const [origin, e] of perOrigin) out += sample("mehir_import_rows_total", { origin }, e.rows);
  out += header("mehir_import_files_total", "counter", "Files handled by finished import runs, by origin");
  for (const [origin, e] of perOrigin) out += sample("mehir_import_files_total", { origin }, e.files);
  out += header("mehir_import_duration_seconds", "histogram", "Duration of finished import runs, by origin");
  for (const [origin, e] of perOrigin) out += renderHistogram("mehir_import_duration_seconds", { origin }, IMPORT_BUCKETS, e.counts, e.sum, e.count);

  const finished = runs.filter((r) => r.finished_at !== null);
  const last = finished[finished.length - 1];
  const lastOk = [...finished].reverse().find((r) => r.status === "ok" || r.status === "partial");
  out += header("mehir_import_running", "gauge", "1 while an import holds the prices database's write transaction (in this process's worker or in a separate mehir import)");
  out += sample("mehir_import_running", {}, writerActive(db) ? 1 : 0);
  out += header("mehir_import_last_duration_seconds", "gauge", "Duration of the last finished import run");
  out += sample("mehir_import_last_duration_seconds", {}, last ? runSeconds(last) : NaN);
  out += header("mehir_import_last_rows", "gauge", "Rows loaded by the last finished import run");
  out += sample("mehir_import_last_rows", {}, last ? last.rows : NaN);
  out += header("mehir_import_last_success_timestamp_seconds", "gauge", "When the last successful (ok or partial) import run finished, Unix time");
  out += sample("mehir_import_last_success_timestamp_seconds", {}, lastOk ? seconds(lastOk.finished_at) : NaN);

  out += header("mehir_data_version", "gauge", "Version of the served price data (increases with every committed import)");
  out += sample("mehir_data_version", {}, data.version);
  out += header("mehir_data_updated_timestamp_seconds", "gauge", "When the served price data was last updated, Unix time");
  out += sample("mehir_data_updated_timestamp_seconds", {}, seconds(data.updatedAt));

  const chains = stmt(db, "SELECT chain_slug, last_data_at FROM chain_health WHERE last_data_at IS NOT NULL ORDER BY chain_slug").all() as {
    chain_slug: string;
    last_data_at: string;
  }[];
  const nowS = now.getTime() / 1000;
  out += header("mehir_chain_last_data_timestamp_seconds", "gauge", "Time of the newest file imported for the chain, Unix time");
  for (const c of chains) out += sample("mehir_chain_last_data_timestamp_seconds", { chain: c.chain_slug }, seconds(c.last_data_at));
  out += header("mehir_chain_data_age_seconds", "gauge", "Age of the chain's newest imported data (freshness); the API calls a chain stale past 36 h");
  for (const c of chains) out += sample("mehir_chain_data_age_seconds", { chain: c.chain_slug }, Math.max(0, nowS - seconds(c.last_data_at)));
  return out;
}
