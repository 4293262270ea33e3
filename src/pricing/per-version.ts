import type { Database } from "bun:sqlite";
import type { SnapshotSource } from "../data/snapshot-source.ts";

/**
 * A value read from a data set's prices database once per data version (a store table, the
 * store locations): read on first use, again after the data version changes.
 * @example new PerVersion(source, (db) => readStoreTable(db)).get()
 */
export class PerVersion<T> {
  private version = -1;
  private value: T | undefined;

  constructor(
    private readonly source: Pick<SnapshotSource, "current" | "db">,
    private readonly read: (db: Database, version: number) => T,
  ) {}

  get(): T {
    const version = this.source.current.version;
    if (version !== this.version || this.value === undefined) {
      this.value = this.read(this.source.db, version);
      this.version = version;
    }
    return this.value;
  }
}
