import type { Database } from "bun:sqlite";
import { databaseSpace } from "../../db/compaction.ts";
import { header, sample } from "../../lib/prometheus.ts";

/**
 * Size and free space of each database file, read at scrape time (three PRAGMAs each): the disk a
 * data dir needs, and how much of it pruning has freed (reused by later writes, or given back by an
 * incremental vacuum: src/db/compaction.ts).
 */
export function databaseMetrics(databases: Record<string, Database>): string {
  const spaces = Object.entries(databases).map(([db, handle]) => ({ db, ...databaseSpace(handle) }));
  let out = header("mehir_database_size_bytes", "gauge", "Size of the database file (pages × page size, its -wal file not included), by database (prices, accounts)");
  for (const s of spaces) out += sample("mehir_database_size_bytes", { db: s.db }, s.bytes);
  out += header("mehir_database_free_pages", "gauge", "Unused pages inside the database file, by database (freed by pruning; reused by later writes)");
  for (const s of spaces) out += sample("mehir_database_free_pages", { db: s.db }, s.freePages);
  out += header("mehir_database_free_bytes", "gauge", "Bytes of the unused pages inside the database file, by database");
  for (const s of spaces) out += sample("mehir_database_free_bytes", { db: s.db }, s.freeBytes);
  out += header("mehir_database_incremental_vacuum", "gauge", "1 when the database gives freed pages back to the disk after pruning (auto_vacuum incremental), 0 until `mehir compact` switches it");
  for (const s of spaces) out += sample("mehir_database_incremental_vacuum", { db: s.db }, s.autoVacuum === "incremental" ? 1 : 0);
  return out;
}
