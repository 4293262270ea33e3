import type { Database } from "bun:sqlite";

export type DataSource = "demo" | "live" | "none";

/** Which data set a DataState follows: the live prices, or the test-mode sandbox (src/sandbox/). */
export type DataSetName = "live" | "sandbox";

export interface DataSnapshot {
  /** Increases with every committed import; cursors and ETags are bound to it. */
  version: number;
  /** ISO 8601 with offset; null before the first import. */
  updatedAt: string | null;
  source: DataSource;
}

/**
 * Where a data set's served snapshot comes from: which data version is current, and the price
 * database holding it. In process: DataState (the data dir's own prices.sqlite, polled for
 * imports). A replica's source would download a primary's snapshot and switch to it: `db` then
 * changes with `current`, and `onChange` listeners run after the switch.
 */
export interface SnapshotSource {
  /** Cursors name it, so a page token of one data set is refused by the other. */
  readonly name: DataSetName;
  readonly current: DataSnapshot;
  readonly hasData: boolean;
  /** The price database of the current snapshot. */
  readonly db: Database;
  /** Re-reads the current snapshot; true when the data version changed. */
  refresh(): boolean;
  /** Calls `listener` after every refresh that finds a new data version. */
  onChange(listener: (snapshot: DataSnapshot) => void): void;
}
