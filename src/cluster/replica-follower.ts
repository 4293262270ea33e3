import type { Database } from "bun:sqlite";
import { downloadSnapshot, fetchLatestManifest, type PrimaryEndpoint } from "./download-snapshot.ts";
import { openSnapshot, sha256File } from "./snapshot-file.ts";
import { schemaDifferences } from "./snapshot-schema.ts";
import type { SnapshotManifest, SnapshotStore } from "./snapshot-store.ts";
import { Backoff, realTimer, type Timer } from "../lib/backoff.ts";

type Log = (msg: string, fields?: Record<string, unknown>) => void;

/** How often a replica asks its primary for a newer snapshot. */
export const REPLICA_POLL_MS = 2000;
/**
 * After a refused snapshot the next poll waits 2 s, doubling to 5 min, instead of downloading the
 * whole file again every REPLICA_POLL_MS; a snapshot served starts over.
 */
export const REFUSED_RETRY_FIRST_MS = 2_000;
export const REFUSED_RETRY_MAX_MS = 300_000;
/** Snapshots a replica keeps on disk: the one it serves and the one before (still open for a while). */
const KEEP_LOCAL = 2;

export interface ReplicaFollowerOptions {
  primary: PrimaryEndpoint;
  /** The replica's own copies (`<data-dir>/snapshots`). */
  store: SnapshotStore;
  /** Switches serving to a verified, read-only snapshot (builds its search index first). */
  serve: (db: Database, manifest: SnapshotManifest) => Promise<void>;
  pollMs?: number;
  info: Log;
  error: Log;
  /** Download options for tests. */
  download?: { attempts?: number; retryDelayMs?: number; maxBytes?: number; probeBudgetMs?: number };
  /** How the next poll is timed (tests record the delays). */
  timer?: Timer;
}

/** What a replica's metrics and logs say about its snapshots. */
export interface ReplicaStatus {
  /** Data version served; 0 before the first snapshot. */
  version: number;
  /** Snapshots refused (size, hash, schema, quick_check or probe queries) since start. */
  refused: number;
  /** Failed polls of the primary (unreachable, or an error answer) since start. */
  pollFailures: number;
  /** Why the last snapshot was refused (null before any refusal). */
  lastRefusal: string | null;
}

/**
 * A replica's side of the snapshots: at start it serves its newest local copy that still checks
 * out (so a restart serves at once); then it asks the primary every `pollMs` for its newest
 * manifest and, when it is newer than what is served, downloads, verifies and switches to it.
 * A refused or failed download leaves the served snapshot as it was; the next poll tries again,
 * after a refusal later each time (REFUSED_RETRY_FIRST_MS doubling to REFUSED_RETRY_MAX_MS).
 */
export class ReplicaFollower {
  private timer: unknown = null;
  private stopped = false;
  private polling: Promise<void> | null = null;
  private readonly refusals = new Backoff(REFUSED_RETRY_FIRST_MS, REFUSED_RETRY_MAX_MS);
  /** The wait before the next poll when it is not the poll interval (after a refusal). */
  private retryInMs: number | null = null;
  private readonly timers: Timer;
  readonly status: ReplicaStatus = { version: 0, refused: 0, pollFailures: 0, lastRefusal: null };

  constructor(private readonly options: ReplicaFollowerOptions) {
    this.timers = options.timer ?? realTimer;
  }

  /** Restores the newest local copy, then follows the primary. Resolves after the first poll. */
  async start(): Promise<void> {
    await this.restoreLocal();
    await this.poll();
  }

  /** Asks the primary now (tests; the timer does it otherwise). Concurrent calls share one poll. */
  poll(): Promise<void> {
    this.polling ??= this.pollOnce().finally(() => {
      this.polling = null;
      this.schedule();
    });
    return this.polling;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) this.timers.clear(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    if (this.stopped) return;
    if (this.timer) this.timers.clear(this.timer);
    this.timer = this.timers.set(() => void this.poll(), this.retryInMs ?? this.options.pollMs ?? REPLICA_POLL_MS);
  }

  /** Counts a refused snapshot, logs why (once per attempt) and puts the next poll off. */
  private refuse(msg: string, manifest: SnapshotManifest, error: unknown): void {
    this.status.refused++;
    this.status.lastRefusal = String((error as Error).message);
    this.retryInMs = this.refusals.fail();
    this.options.error(msg, { data_version: manifest.data_version, served_version: this.status.version, error: this.status.lastRefusal, retry_in_ms: this.retryInMs });
  }

  private async restoreLocal(): Promise<void> {
    const { store, info, error } = this.options;
    for (const manifest of store.list()) {
      try {
        const path = store.filePath(manifest.data_version);
        if ((await sha256File(path)) !== manifest.sha256) throw new Error("SHA-256 mismatch");
        const db = openSnapshot(path);
        // Checked when downloaded, but perhaps by an older mehir with another schema.
        const differences = schemaDifferences(db);
        if (differences.length > 0) {
          db.close();
          throw new Error(`schema differs from this mehir's: ${differences.slice(0, 5).join("; ")}`);
        }
        await this.switchTo(db, manifest);
        info("replica: serving the local snapshot", { data_version: manifest.data_version });
        return;
      } catch (e) {
        error("replica: local snapshot unusable, deleted", { data_version: manifest.data_version, error: String((e as Error).message) });
        store.remove(manifest.data_version);
      }
    }
  }

  private async pollOnce(): Promise<void> {
    if (this.stopped) return;
    this.retryInMs = null;
    const { primary, store, info, error } = this.options;
    let manifest: SnapshotManifest | null;
    try {
      manifest = await fetchLatestManifest(primary);
    } catch (e) {
      this.status.pollFailures++;
      error("replica: primary unreachable", { error: String((e as Error).message) });
      return;
    }
    if (!manifest || manifest.data_version <= this.status.version) return;
    const started = performance.now();
    let db: Database;
    try {
      db = await downloadSnapshot({ primary, manifest, store, ...this.options.download });
    } catch (e) {
      this.refuse("replica: snapshot refused, serving the previous one", manifest, e);
      return;
    }
    try {
      await this.switchTo(db, manifest);
    } catch (e) {
      this.refuse("replica: could not serve the snapshot, serving the previous one", manifest, e);
      return;
    }
    this.refusals.succeed();
    info("replica: switched snapshot", { data_version: manifest.data_version, bytes: manifest.size, ms: Math.round(performance.now() - started) });
  }

  private async switchTo(db: Database, manifest: SnapshotManifest): Promise<void> {
    try {
      await this.options.serve(db, manifest);
    } catch (e) {
      db.close();
      throw e;
    }
    this.status.version = manifest.data_version;
    for (const old of this.options.store.list().slice(KEEP_LOCAL)) this.options.store.remove(old.data_version);
  }
}
