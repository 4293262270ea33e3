import type { Database } from "bun:sqlite";
import { checkpointWal } from "./checkpoint.ts";

/**
 * Giving disk space back. Pages freed by pruning (src/db/retention.ts) are reused by later writes
 * in any case, so a database stops growing once its retention window is full. To also shrink the
 * file, a database must be in `auto_vacuum = INCREMENTAL` mode: new data dirs are created so
 * (openDatabase), an older file is switched once by `mehir compact` (a VACUUM); after that every
 * import's pruning is followed by incremental_vacuum in small steps (reclaimFreePages).
 */

/** Pages per incremental_vacuum step: each is one short write transaction (16 MiB at 4 KiB pages). */
const STEP_PAGES = 4_096;

export interface DatabaseSpace {
  /** The file's size in bytes (pages × page size; the -wal file not included). */
  bytes: number;
  pages: number;
  pageSize: number;
  /** Unused pages inside the file (reused by later writes, or given back by an incremental vacuum). */
  freePages: number;
  freeBytes: number;
  /** `none`, `full` or `incremental` (only `incremental` gives space back after pruning). */
  autoVacuum: "none" | "full" | "incremental";
}

const AUTO_VACUUM = ["none", "full", "incremental"] as const;

function pragma(db: Database, name: string): number {
  return Number(db.query(`PRAGMA ${name}`).values()[0]?.[0] ?? 0);
}

/**
 * Size and free pages of a database (for /metrics and status output).
 * @example databaseSpace(db) // { bytes: 1207959552, pages: 294912, pageSize: 4096, freePages: 1200, freeBytes: 4915200, autoVacuum: "incremental" }
 */
export function databaseSpace(db: Database): DatabaseSpace {
  const pageSize = pragma(db, "page_size");
  const pages = pragma(db, "page_count");
  const freePages = pragma(db, "freelist_count");
  return { bytes: pages * pageSize, pages, pageSize, freePages, freeBytes: freePages * pageSize, autoVacuum: AUTO_VACUUM[pragma(db, "auto_vacuum")] ?? "none" };
}

/**
 * Gives the file's free pages back to the disk in steps of STEP_PAGES, each its own short write
 * transaction (readers are never blocked, a waiting writer at most one step), when the database is
 * in incremental mode; else does nothing. Returns the pages given back.
 */
export function reclaimFreePages(db: Database, maxPages = Number.POSITIVE_INFINITY): number {
  if (pragma(db, "auto_vacuum") !== 2) return 0;
  let reclaimed = 0;
  while (reclaimed < maxPages) {
    const free = pragma(db, "freelist_count");
    if (free === 0) break;
    const step = Math.min(STEP_PAGES, free, maxPages - reclaimed);
    db.run(`PRAGMA incremental_vacuum(${step})`);
    const after = pragma(db, "freelist_count");
    if (after >= free) break;
    reclaimed += free - after;
  }
  return reclaimed;
}

/**
 * Rewrites the whole database compactly (VACUUM) in incremental auto-vacuum mode: the one-time
 * switch of a file made before that mode, and a full defragmentation. Readers keep reading their
 * snapshot throughout; writers (an import) wait until it ends, so run it at a quiet hour. Needs
 * free disk of about the database's size (the rewrite goes through the write-ahead log), emptied
 * into the file at the end.
 */
export function compactDatabase(db: Database): { before: DatabaseSpace; after: DatabaseSpace } {
  const before = databaseSpace(db);
  db.run("PRAGMA auto_vacuum = INCREMENTAL");
  db.run("VACUUM");
  checkpointWal(db, 10_000);
  return { before, after: databaseSpace(db) };
}
