import type { Database } from "bun:sqlite";
import type { DataSetName, DataSnapshot, DataSource, SnapshotSource } from "./snapshot-source.ts";

export type { DataSetName, DataSnapshot, DataSource } from "./snapshot-source.ts";

/**
 * The in-process SnapshotSource: the service's view of which price data is current. Imports (in this process, a worker or
 * another process) bump `meta.data_version` in the same transaction as the data; `refresh()`
 * is cheap (one indexed read) and is polled so the search index can follow.
 */
export class DataState implements SnapshotSource {
  private snapshot: DataSnapshot = { version: 0, updatedAt: null, source: "none" };
  private readonly read;
  private readonly listeners: ((snapshot: DataSnapshot) => void)[] = [];

  constructor(
    readonly db: Database,
    /** Cursors name it, so a page token of one data set is refused by the other. */
    readonly name: DataSetName = "live",
  ) {
    this.read = db.prepare("SELECT key, value FROM meta WHERE key IN ('data_version', 'data_updated_at', 'source')");
    this.refresh();
  }

  /** Re-reads the meta table; returns true when the data version changed. */
  refresh(): boolean {
    const rows = this.read.all() as { key: string; value: string }[];
    const meta = Object.fromEntries(rows.map((r) => [r.key, r.value]));
    const next: DataSnapshot = {
      version: Number(meta.data_version ?? 0),
      updatedAt: meta.data_updated_at ?? null,
      source: (meta.source as DataSource | undefined) ?? "none",
    };
    const changed = next.version !== this.snapshot.version;
    this.snapshot = next;
    if (changed) for (const listener of this.listeners) listener(next);
    return changed;
  }

  /** Calls `listener` after every refresh that finds a new data version (e.g. to rebuild the search index). */
  onChange(listener: (snapshot: DataSnapshot) => void): void {
    this.listeners.push(listener);
  }

  get current(): DataSnapshot {
    return this.snapshot;
  }

  get hasData(): boolean {
    return this.snapshot.version > 0;
  }
}

/** Writes the meta rows of a committed import (call inside the import's transaction). */
export function bumpDataVersion(db: Database, updatedAt: string, source: "demo" | "live"): number {
  const row = db.query("SELECT value FROM meta WHERE key = 'data_version'").get() as { value: string } | null;
  const version = Number(row?.value ?? 0) + 1;
  const upsert = db.prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value");
  upsert.run("data_version", String(version));
  upsert.run("data_updated_at", updatedAt);
  upsert.run("source", source);
  return version;
}
