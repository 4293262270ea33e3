import type { Database } from "bun:sqlite";
import type { Registry } from "../../registry.ts";
import { syncRegistry } from "../../db/sync-registry.ts";
import { buildIndexes } from "../../db/build-indexes.ts";
import { beginWriteInMemoryJournals } from "../../db/begin-write.ts";
import { bumpDataVersion } from "../../data/data-state.ts";
import { toIsraelIso } from "../../lib/time.ts";
import { describeFile, type FileDescription } from "./describe.ts";
import { ProductCache, type Classifier } from "./products.ts";
import { reclassifyIfTableChanged } from "./reclassify.ts";
import { StoreCache, loadStores, type CityResolver } from "./stores.ts";
import { closeMissingStores, closeSilentStores } from "./store-lifecycle.ts";
import { PriceStatements, loadPrices } from "./prices.ts";
import type { StoreRowsMemo } from "./store-rows.ts";
import { PromotionStatements, collectOrphanPromotions, linkPendingItems, loadPromos } from "./promos.ts";
import { wipePriceData } from "./wipe.ts";
import { HistoryBuffer } from "./history.ts";
import { rebuildChainProducts, refreshChainProductsFor } from "./chain-products.ts";
import type { FileOutcome, LoadableFile, LoadInput } from "./types.ts";
import { asPriceList } from "./price-rows.ts";
import { rebuildGenericProducts } from "./generic-products.ts";
import { PRODUCE_GROUPS } from "../../identity/produce-groups.ts";

export interface SessionOptions {
  /** A connection nobody else uses during the run (readers use their own connections). */
  db: Database;
  registry: Registry;
  now?: () => Date;
  /** Fills products.category; null leaves it empty. */
  classify?: Classifier | null;
  /** The classifier's table version (CATEGORIES_VERSION): a change reclassifies every stored product. */
  classifierVersion?: string;
  /** Resolves stores' City values; default keeps the value and leaves the region empty. */
  resolveCity?: CityResolver;
  /** Delete all price data first (switching between demo and live). */
  replace?: boolean;
}

/** Where a run's database time goes, in milliseconds. */
export interface SessionTimings {
  /** Loading files (inside their savepoints). */
  files: number;
  /** Writing the held price_history rows. */
  history: number;
  /** Re-creating indexes dropped for a bulk load. */
  indexes: number;
  chainProducts: number;
  /** Choosing served names from the chains' (ChainNames) and rebuilding generic products. */
  identity: number;
  commit: number;
}

/** A file over this size that parses to no rows is suspect (research notes §7). */
export const ZERO_ROWS_MIN_BYTES = 1024;

interface ChainRun {
  dataAt: string | null;
  dataMs: number;
  zeroRows: boolean;
}

/**
 * Held price_history rows written while the importing thread waits for a file (see idle): fewer
 * and the writes, each one a pass over the table's pages, cost more than they save.
 */
const IDLE_HISTORY_ROWS = 32_768;

const keepCity: CityResolver = (raw) => ({ city: raw?.trim() || null, region: null });

/**
 * One import run as ONE write transaction: `begin()` takes the write lock (BEGIN IMMEDIATE),
 * each `loadFile()` runs inside its own SAVEPOINT (a file that fails is rolled back alone and
 * reported), and `finish()` removes orphan promotions, writes merged product changes and the
 * held history rows (sorted), re-creates indexes dropped for a bulk load, refreshes
 * chain_products, updates chain_health and bumps meta.data_version before COMMIT. Readers on
 * other connections (WAL) see the old data until the commit, then the new; a process killed
 * before the commit leaves the old data.
 *
 * @example
 * const session = LoadSession.begin({ db, registry });
 * session.loadFile({ fileName, bytes, name, parsed, partial: false, warnings: [] });
 * session.finish("live"); // → data version, or null when nothing was imported (rolled back)
 */
export class LoadSession {
  private readonly products: ProductCache;
  private readonly stores: StoreCache;
  private readonly prices: PriceStatements;
  private readonly promos: PromotionStatements;
  private readonly history: HistoryBuffer;
  private readonly classify: Classifier | null;
  private readonly classifierVersion: string | null;
  private readonly productsWereEmpty: boolean;
  /** Secondary indexes dropped for a bulk load into an empty table, re-created at finish. */
  private readonly droppedIndexes: string[] = [];
  private fullRebuild: boolean;
  /** price_history was empty when the run began (see historyOneRowEach). */
  private readonly historyWasEmpty: boolean;
  /** Price rows loaded over the run whose price changed (each a further history row of its item). */
  private changedRows = 0;
  private readonly chainIds: Map<string, number>;
  private readonly chains = new Map<string, ChainRun>();
  private readonly now: () => Date;
  private readonly resolveCity: CityResolver;
  private open = true;
  /** Files loaded with rows or as legitimately empty (status ok, or partial with rows). */
  imported = 0;
  /** Milliseconds spent per phase (for benchmarks and logs). */
  readonly timings: SessionTimings = { files: 0, history: 0, indexes: 0, chainProducts: 0, identity: 0, commit: 0 };

  private constructor(
    private readonly db: Database,
    private readonly registry: Registry,
    options: SessionOptions,
  ) {
    this.now = options.now ?? (() => new Date());
    this.resolveCity = options.resolveCity ?? keepCity;
    this.chainIds = syncRegistry(db, registry);
    beginWriteInMemoryJournals(db);
    try {
      if (options.replace) wipePriceData(db);
      this.fullRebuild = options.replace === true;
      // Loading into an empty price table: maintaining its product index row by row costs more
      // than building it once at the end (readers keep the old index until the commit).
      if (!db.query("SELECT 1 FROM price_current LIMIT 1").get()) {
        const indexes = db
          .query("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'price_current' AND sql IS NOT NULL")
          .all() as { name: string; sql: string }[];
        for (const index of indexes) {
          db.run(`DROP INDEX "${index.name.replaceAll('"', '""')}"`);
          this.droppedIndexes.push(index.sql);
        }
        this.fullRebuild = true;
      }
      this.historyWasEmpty = !db.query("SELECT 1 FROM price_history LIMIT 1").get();
      this.products = new ProductCache(db, options.classify ?? null);
      this.classify = options.classify ?? null;
      this.productsWereEmpty = !db.query("SELECT 1 FROM products LIMIT 1").get();
      this.classifierVersion = options.classifierVersion ?? null;
      this.stores = new StoreCache(db);
      this.prices = new PriceStatements(db);
      this.promos = new PromotionStatements(db);
      this.history = new HistoryBuffer(db);
    } catch (error) {
      db.run("ROLLBACK");
      throw error;
    }
  }

  /** Opens the run's transaction (waits up to the connection's busy_timeout for the write lock). */
  static begin(options: SessionOptions): LoadSession {
    return new LoadSession(options.db, options.registry, options);
  }

  /**
   * Work the importing thread can do between files while it waits for the next one to be parsed:
   * writes the held price_history rows once there are IDLE_HISTORY_ROWS of them, so the end of
   * the run has fewer left to write. Returns whether it did anything (call again until false).
   * @example await ahead.take(i, () => session.idle())
   */
  idle(): boolean {
    if (!this.open || this.history.size < IDLE_HISTORY_ROWS) return false;
    const flushing = performance.now();
    this.history.flush();
    this.timings.history += performance.now() - flushing;
    return true;
  }

  /** Loads one parsed file inside a savepoint; never throws for a bad file (the outcome says why). */
  loadFile(input: LoadInput): FileOutcome {
    if (!this.open) throw new Error("load session already finished");
    const described = describeFile(this.registry, input, this.now());
    if (!described.ok) {
      return {
        type: described.type,
        chainCode: described.chainCode,
        chainSlug: described.chainSlug,
        storeCode: described.storeCode,
        fileTime: described.time,
        rows: 0,
        status: "rejected",
        reason: described.reason,
        warnings: input.warnings,
        zeroRows: false,
        counts: {},
      };
    }
    const file = described.file;
    const outcome: FileOutcome = {
      type: file.type,
      chainCode: file.chainCode,
      chainSlug: file.chain.slug,
      storeCode: file.storeCode,
      fileTime: file.time,
      rows: 0,
      status: "ok",
      reason: null,
      warnings: [...input.warnings, ...file.warnings],
      zeroRows: false,
      counts: {},
    };
    const historyMark = this.history.mark();
    const started = performance.now();
    this.db.run("SAVEPOINT import_file");
    try {
      this.loadDescribed(input, file, outcome);
      this.db.run("RELEASE import_file");
    } catch (error) {
      // SQLite rolled the whole transaction back (disk full, I/O error): the run fails with that cause.
      if (!this.db.inTransaction) throw error;
      this.db.run("ROLLBACK TO import_file");
      this.db.run("RELEASE import_file");
      this.history.truncate(historyMark);
      this.prices.insert.discard();
      this.prices.changes.discard();
      this.prices.known.clear();
      this.products.rollbackFile();
      this.stores.clear();
      this.promos.clear();
      return { ...outcome, rows: 0, status: "rejected", reason: `load failed: ${(error as Error).message}`, zeroRows: false, counts: {} };
    }
    this.products.commitFile();
    this.timings.files += performance.now() - started;
    // Past the savepoint: the held history rows all belong to loaded files.
    if (this.history.full) {
      const flushing = performance.now();
      this.history.flush();
      this.timings.history += performance.now() - flushing;
    }
    this.account(file, outcome);
    return outcome;
  }

  private loadDescribed(input: LoadInput, file: FileDescription, outcome: FileOutcome): void {
    const parsed: LoadableFile = input.parsed.kind === "prices" ? asPriceList(input.parsed) : input.parsed;
    const count = parsed.kind === "stores" ? parsed.stores.length : parsed.kind === "price-rows" ? parsed.rows.count : parsed.promotions.length;
    if (count === 0 && input.bytes > ZERO_ROWS_MIN_BYTES) {
      outcome.status = "partial";
      outcome.zeroRows = true;
      outcome.reason = `parsed to 0 rows from ${input.bytes} bytes; nothing changed`;
      return;
    }
    const chainId = this.chainIds.get(file.chain.slug)!;
    const placeholder = input.name?.isNullPlaceholder ?? false;

    if (parsed.kind === "stores") {
      const { listed, codes, subChains, ...result } = loadStores(this.db, this.registry, this.chainIds, parsed, { chain: file.chain, code: file.chainCode }, file.time, this.resolveCity);
      outcome.rows = result.rows;
      outcome.counts = { ...result, closed: 0 };
      if (result.skipped > 0) outcome.warnings.push(`${result.skipped} store records of other chains or without a store code skipped`);
      if (result.older > 0) outcome.warnings.push(`${result.older} stores already described by a newer Stores list kept as they are`);
      if (result.reopened > 0) outcome.warnings.push(`${result.reopened} closed stores listed again: open`);
      // A cut or placeholder list says nothing about the stores it does not name.
      if (!input.partial && !placeholder) {
        const closing = closeMissingStores(this.db, { chainId, codes, subChains, listed, time: file.time, prices: this.prices, history: this.history, promos: this.promos });
        outcome.counts.closed = closing.closed;
        if (closing.closed > 0) outcome.warnings.push(`${closing.closed} stores missing from this full list closed`);
        if (closing.partialReason) outcome.warnings.push(closing.partialReason);
        const silent = closeSilentStores(this.db, { chainId, prices: this.prices, history: this.history, promos: this.promos });
        outcome.counts.closed += silent;
        if (silent > 0) outcome.warnings.push(`${silent} stores with no list or file for 30 days before the chain's newest full Stores list closed (a code the chain no longer publishes under)`);
        this.stores.clear();
      }
    } else {
      const store = this.stores.resolve(chainId, file.chainCode, file.storeCode!, file.subChainCode);
      if (store.closedAt !== null) {
        outcome.status = "skipped";
        outcome.reason = `store ${file.storeCode} is closed: missing from the chain's Stores list of ${store.closedAt}`;
        return;
      }
      const loadedMs = parsed.kind === "price-rows" ? store.pricesMs : store.promosMs;
      if (loadedMs !== null && file.timeMs < loadedMs) {
        outcome.status = "skipped";
        outcome.reason = `older than the ${parsed.kind === "price-rows" ? "prices" : "promotions"} already loaded for store ${file.storeCode} (${toIsraelIso(new Date(loadedMs))})`;
        return;
      }
      if (parsed.kind === "price-rows") {
        // A truncated PriceFull may update prices but never removes items; an empty one is a
        // publishing failure, not a store that sells nothing.
        const replace = file.type === "pricefull" && !input.partial && !placeholder && count > 0;
        const result = loadPrices(this.prices, this.products, this.history, store.id, chainId, parsed.rows, { replace, time: file.time, timeMs: file.timeMs });
        outcome.rows = result.rows;
        outcome.counts = { ...result };
        this.changedRows += result.changed;
        if (file.type === "pricefull" && count === 0) outcome.reason = "empty PriceFull: the store's previous list is kept";
        if (result.duplicates > 0) {
          outcome.warnings.push(
            `${result.duplicates} repeated items, ${result.conflicting} of them with different prices (the row updated last counts; at equal times the last listed)`,
          );
        }
      } else {
        const replace = file.type === "promofull" && !input.partial && !placeholder;
        const { result, unreadable } = loadPromos(this.promos, this.products, store.id, { chainId, chainCode: file.chainCode }, parsed.promotions, { replace });
        outcome.rows = result.rows;
        outcome.counts = { ...result };
        if (result.unknownItems > 0) outcome.warnings.push(`${result.unknownItems} promotion items of products no price file has published yet (kept; linked when one does)`);
        if (unreadable.length > 0) {
          const shown = unreadable.slice(0, 5).map((u) => `${u.promotionCode} (${u.values.map((v) => JSON.stringify(v)).join(", ")})`);
          outcome.warnings.push(`${unreadable.length} promotions left out: dates that cannot be read: ${shown.join("; ")}${unreadable.length > 5 ? "; …" : ""}`);
        }
      }
      this.stores.touch(store, parsed.kind === "price-rows" ? "prices" : "promos", file.time, file.timeMs);
    }
    if (input.partial) {
      outcome.status = "partial";
      outcome.reason = `truncated file: ${outcome.rows} rows loaded${file.type === "pricefull" || file.type === "promofull" ? ", nothing removed" : ""}`;
    }
  }

  private account(file: FileDescription, outcome: FileOutcome): void {
    if (outcome.status === "skipped") return;
    let run = this.chains.get(file.chain.slug);
    if (!run) this.chains.set(file.chain.slug, (run = { dataAt: null, dataMs: -Infinity, zeroRows: false }));
    if (outcome.zeroRows) {
      run.zeroRows = true;
      return;
    }
    this.imported++;
    if (file.timeMs > run.dataMs) {
      run.dataMs = file.timeMs;
      run.dataAt = file.time;
    }
  }

  /**
   * Finishes the run: commits and returns the new data version, or rolls back and returns null
   * when no file could be imported (a run of only bad files changes nothing, not even a wipe).
   */
  finish(source: "demo" | "live", updatedAt: string = toIsraelIso(this.now())): number | null {
    if (!this.open) throw new Error("load session already finished");
    if (this.imported === 0) {
      this.abort();
      return null;
    }
    try {
      let at = performance.now();
      const lap = (phase: keyof SessionTimings) => {
        const now = performance.now();
        this.timings[phase] += now - at;
        at = now;
      };
      collectOrphanPromotions(this.db, this.promos.released);
      this.products.flush();
      linkPendingItems(this.db);
      if (this.classify && this.classifierVersion) {
        reclassifyIfTableChanged(this.db, this.classify, this.classifierVersion, { allNew: this.productsWereEmpty });
      }
      this.history.flush();
      lap("history");
      buildIndexes(this.db, this.droppedIndexes);
      lap("indexes");
      this.refreshChainProducts();
      lap("chainProducts");
      // Product identity: served names from every chain's (they decide produce groups), then the groups.
      this.products.names.flush(this.db, this.classify);
      const generic = rebuildGenericProducts(this.db, PRODUCE_GROUPS, this.fullRebuild ? null : this.prices.touched, updatedAt);
      if (generic.length > 0) refreshChainProductsFor(this.db, generic);
      lap("identity");
      this.writeChainHealth();
      const version = bumpDataVersion(this.db, updatedAt, source);
      this.db.run("COMMIT");
      lap("commit");
      this.open = false;
      return version;
    } catch (error) {
      this.abort();
      throw error;
    }
  }

  private refreshChainProducts(): void {
    const touched = this.prices.touched;
    if (touched.size === 0 && !this.fullRebuild) return;
    const products = (this.db.query("SELECT count(*) AS n FROM products").get() as { n: number }).n;
    // Per product costs index seeks; past a fifth of all products one ordered pass is cheaper.
    if (this.fullRebuild || touched.size * 5 > products) rebuildChainProducts(this.db, this.heldRows());
    else refreshChainProductsFor(this.db, touched);
  }

  /**
   * Every row of price_current when the run holds them all in memory (a first import: every store
   * loaded whole, none past the memo's bound), else undefined. Held rows are exact copies of their
   * stores' rows (every writer of a store's rows forgets them), so when every store with rows is
   * held and the counts are equal, no row is missing (one index seek a store).
   */
  private heldRows(): StoreRowsMemo | undefined {
    const known = this.prices.known;
    if (known.size === 0) return undefined;
    const { n } = this.db.query("SELECT count(*) AS n FROM price_current").get() as { n: number };
    const withRows = this.db.query("SELECT id FROM stores WHERE EXISTS (SELECT 1 FROM price_current WHERE store_id = stores.id)").values() as [number][];
    return known.holdsAll(n, withRows.map(([id]) => id)) ? known : undefined;
  }

  /**
   * price_history holds at most one row per product and store, each with a price: it was empty
   * when the run began, and the run wrote no row "no longer sold" (null) and no changed price —
   * an item's second row is one or the other (a price back after a null follows the null). A
   * first import; retention then has nothing to remove from it (pruneDatabase).
   */
  get historyOneRowEach(): boolean {
    return this.historyWasEmpty && this.changedRows === 0 && this.history.nullRows === 0;
  }

  /** Rolls the whole run back (the previous data stays). */
  abort(): void {
    if (!this.open) return;
    this.open = false;
    if (this.db.inTransaction) this.db.run("ROLLBACK");
  }

  private writeChainHealth(): void {
    const read = this.db.prepare("SELECT last_data_at FROM chain_health WHERE chain_slug = ?");
    const upsert = this.db.prepare(
      // last_attempt_at / last_success_at belong to fetches (fetch-chains.ts): an import of files
      // from disk is not a fetch, and must not restamp one.
      `INSERT INTO chain_health (chain_slug, last_data_at, zero_rows) VALUES (?, ?, ?)
       ON CONFLICT (chain_slug) DO UPDATE SET
         last_data_at = excluded.last_data_at,
         zero_rows = excluded.zero_rows`,
    );
    for (const [slug, run] of this.chains) {
      const known = (read.get(slug) as { last_data_at: string | null } | null)?.last_data_at ?? null;
      const dataAt = run.dataAt && (!known || Date.parse(run.dataAt) > Date.parse(known)) ? run.dataAt : known;
      upsert.run(slug, dataAt, run.zeroRows ? 1 : 0);
    }
  }
}
