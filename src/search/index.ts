import type { Database } from "bun:sqlite";
import type { SnapshotSource } from "../data/snapshot-source.ts";
import { log } from "../lib/log.ts";
import { buildSearchIndex, type BuildOptions } from "./build.ts";
import type { SearchIndex, SearchPage, SearchRequest } from "./search-index.ts";

export type { SearchPage, SearchRequest } from "./search-index.ts";

export interface SearchOptions extends BuildOptions {
  /** After a failed build, `follow` tries again this long later, doubling up to 16 times this (ms). */
  retryMs?: number;
}

/** First retry 30 s after a failed build, then 1, 2, 4 … up to 8 minutes apart. */
const RETRY_MS = 30_000;

/**
 * The service's product search: holds the current index and replaces it in one step when a
 * rebuild finishes, so the old index serves until then. Rebuilds add to the index on the main
 * thread in time slices, a worker reading and analysing the rows meanwhile (see build.ts), and
 * never overlap: calls made while one runs share a single follow-up rebuild.
 *
 * @example
 * const search = new ProductSearch().follow(data, db.prices) // rebuilds after every import
 * if (search.ready) search.search({ q: "והחלב", limit: 20, offset: 0 }) // → { ids, total, version }
 */
export class ProductSearch {
  private index: SearchIndex | null = null;
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;
  private completed = 0;
  private failures = 0;
  private retry: ReturnType<typeof setTimeout> | null = null;
  private readonly stopping = new AbortController();
  private readonly built: (() => void)[] = [];

  constructor(private readonly options: SearchOptions = {}) {}

  /** True once an index exists (possibly of an older data version while a rebuild runs). */
  get ready(): boolean {
    return this.index !== null;
  }

  /** Data version of the index serving now; -1 before the first build. */
  get version(): number {
    return this.index?.version ?? -1;
  }

  /** Products in the index serving now. */
  get size(): number {
    return this.index?.size ?? 0;
  }

  /** Builds completed since this holder was made. */
  get builds(): number {
    return this.completed;
  }

  /** True while a rebuild runs. */
  get building(): boolean {
    return this.running !== null;
  }

  /** Failed builds since the last successful one. */
  get failedBuilds(): number {
    return this.failures;
  }

  /**
   * Stops following the data before its database closes: a build under way ends at its next
   * slice, no retry or rebuild starts, and nothing more is logged. The serving index stays.
   */
  stop(): void {
    this.stopping.abort();
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
  }

  /** Calls `listener` after each build that swaps in a new index. */
  onBuilt(listener: () => void): void {
    this.built.push(listener);
  }

  /** Resolves once no build is running or queued (whether the last one succeeded or not). */
  async settled(): Promise<void> {
    while (this.queued || this.running) await (this.queued ?? this.running)!.catch(() => undefined);
  }

  /**
   * Rebuilds the index from the database and swaps it in. Resolves once an index built after
   * this call started is serving; concurrent calls coalesce into at most one more build.
   * Rejects when the build fails (the previous index keeps serving).
   */
  rebuild(db: Database): Promise<void> {
    if (this.queued) return this.queued;
    if (this.running) {
      const after = this.running.catch(() => undefined);
      this.queued = after.then(() => {
        this.queued = null;
        return this.start(db);
      });
      return this.queued;
    }
    return this.start(db);
  }

  private start(db: Database): Promise<void> {
    const started = performance.now();
    const run = buildSearchIndex(db, { ...this.options, signal: this.stopping.signal }).then(
      (index) => {
        this.index = index;
        this.completed++;
        this.failures = 0;
        log.info("search index built", { data_version: index.version, products: index.size, ms: Math.round(performance.now() - started) });
        for (const listener of this.built) listener();
      },
      (error) => {
        this.failures++;
        throw error;
      },
    );
    this.running = run.finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /**
   * Rebuilds now if the data is imported, and after every new data version (DataState.refresh
   * sees imports committed by this process, its workers and other processes alike). A failed
   * build is logged and tried again later (see SearchOptions.retryMs) unless a new data version
   * comes first; meanwhile the previous index, if any, keeps serving.
   */
  follow(data: SnapshotSource, db: Database): this {
    const base = this.options.retryMs ?? RETRY_MS;
    const rebuild = () => {
      if (this.retry) clearTimeout(this.retry);
      this.retry = null;
      if (this.stopping.signal.aborted) return;
      this.rebuild(db).catch((error) => {
        if (this.stopping.signal.aborted) return;
        const delay = base * 2 ** Math.min(this.failures - 1, 4);
        log.error("search index build failed", { error: String((error as Error)?.stack ?? error), retry_in_ms: delay });
        if (this.retry) return;
        this.retry = setTimeout(rebuild, delay);
        this.retry.unref?.();
      });
    };
    data.onChange(rebuild);
    if (data.hasData) rebuild();
    return this;
  }

  /** Relevance-ordered page of `products.id`; throws when no index exists (check `ready`). */
  search(request: SearchRequest): SearchPage {
    if (!this.index) throw new Error("the search index is not built yet");
    return this.index.search(request);
  }

  /** Category slug the serving index holds for a product (stored or classified), or null. */
  categoryOf(productId: number): string | null {
    return this.index?.categoryOf(productId) ?? null;
  }
}
