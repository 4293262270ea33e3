import type { Database } from "bun:sqlite";
import type { DataState } from "../data-state.ts";
import { log } from "../log.ts";
import { buildSearchIndex, type BuildOptions } from "./build.ts";
import type { SearchIndex, SearchPage, SearchRequest } from "./search-index.ts";

export type { SearchPage, SearchRequest } from "./search-index.ts";

/**
 * The service's product search: holds the current index and replaces it in one step when a
 * rebuild finishes, so the old index serves until then. Rebuilds run on the main thread in
 * chunks (see build.ts) and never overlap: calls made while one runs share a single
 * follow-up rebuild.
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

  constructor(private readonly options: BuildOptions = {}) {}

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
    const run = buildSearchIndex(db, this.options).then((index) => {
      this.index = index;
      this.completed++;
      log.info("search index built", { data_version: index.version, products: index.size, ms: Math.round(performance.now() - started) });
    });
    this.running = run.finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /**
   * Rebuilds now if the data is imported, and after every new data version. Build errors are
   * logged; the previous index keeps serving.
   */
  follow(data: DataState, db: Database): this {
    const rebuild = () => {
      this.rebuild(db).catch((error) => log.error("search index build failed", { error: String((error as Error)?.stack ?? error) }));
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
