import type { Settings } from "./config.ts";
import type { Databases } from "./db/open.ts";
import type { Clock, DataSet, Pacing } from "./deps.ts";
import { DataState } from "./data/data-state.ts";
import type { SnapshotSource } from "./data/snapshot-source.ts";
import { loadRegistry, type Registry } from "./registry.ts";
import { log } from "./lib/log.ts";
import { ColdBudget, threadCpuMs } from "./serving/cold-budget.ts";
import { Revalidator } from "./serving/revalidator.ts";
import { LoadMeter } from "./serving/load-meter.ts";
import { backgroundPace } from "./serving/background-pace.ts";
import { AnswerEpoch } from "./serving/answer-epoch.ts";
import { DataSets } from "./serving/data-set.ts";
import { createAccessService, type AccessService } from "./access/service.ts";
import { dataTables } from "./pricing/data-tables.ts";
import { ProductSearch } from "./search/index.ts";
import { priceAnswers, storePriceAnswers } from "./modules/prices/service.ts";
import { historyAnswers } from "./modules/prices/history.ts";
import { catalogAnswers } from "./modules/catalog/service.ts";
import { searchAnswers, searchItemRows } from "./modules/search/service.ts";
import { basketAnswers } from "./modules/basket/service.ts";
import { priceIndexAnswers, priceIndexComputations } from "./modules/price-index/service.ts";
import { itemPricings } from "./modules/basket/item-pricing.ts";
import { BasketData } from "./modules/basket/basket-data.ts";
import { createAlertService, type AlertService, type AlertServiceOptions } from "./alerts/alert-service.ts";
import { openSandboxDatabase, Sandbox } from "./sandbox/sandbox.ts";
import type { ExportStore } from "./exports/store.ts";

/**
 * Everything a running server holds, built once by createServices (the composition root) and
 * handed to createApp. A reader sees the whole server here; tests build it on in-memory databases.
 */
export interface Services {
  settings: Settings;
  db: Databases;
  registry: Registry;
  now: Clock;
  /** The live data's snapshot source (the server polls it for imports). */
  data: SnapshotSource;
  /** The live data's product search index, rebuilt after every new data version. */
  search: ProductSearch;
  /** Cold budget, revalidator and load meter: how cold work shares the serving thread. */
  pacing: Pacing;
  /** The pace of background work on the serving thread (search index rebuilds). */
  backgroundPace: (workedMs: number) => Promise<void>;
  /** The live data set and test mode's sandbox data set, each with its tables and answer caches. */
  dataSets: DataSets;
  /** Test mode's data (its own database, made on first use). */
  sandbox: Sandbox;
  /** Keys, rate limits, quotas and the meter: the access layer's shared state (interfaces). */
  access: AccessService;
  /** Price alerts: stores, evaluator (after every new data version), delivery worker. */
  alerts: AlertService;
  /** The daily exports on disk; none listed when absent. */
  exports: ExportStore | null;
  /** Prometheus lines of the server's cluster role (src/cluster/cluster-role.ts), appended to /metrics. */
  roleMetrics?: () => string;
  /** GET /metrics (null with MEHIR_METRICS=off), set by createApp; the server serves it on MEHIR_METRICS_ADDR. */
  metricsEndpoint?: (request: Request) => Response;
  /**
   * A live data set on another snapshot (a replica's next one, src/cluster/serve-snapshot.ts),
   * with tables and answer caches of its own and the process's pacing.
   */
  liveDataSet(source: SnapshotSource, search: ProductSearch): DataSet;
  /** Stops background work and writes pending usage (the app's onStop calls it). */
  stop(): void;
}

/** What tests (and the server) may give instead of the defaults. */
export interface ServiceOptions {
  registry?: Registry;
  now?: Clock;
  /** The live data's snapshot source; default a DataState on `databases.prices`. */
  data?: SnapshotSource;
  search?: ProductSearch;
  exports?: ExportStore;
  access?: AccessService;
  /** The alert service's clock, sender and jitter (tests pass manual ones). */
  alerts?: AlertServiceOptions;
  /** Default: one measured on this thread's CPU time (tests give a fixed one). */
  coldBudget?: ColdBudget;
  /** Default: in memory, made on first use (the server's is `<data-dir>/sandbox.sqlite`). */
  sandbox?: Sandbox;
}

/**
 * The composition root: builds every long-lived piece of the serving side once.
 *
 * - pacing: one cold budget (on this thread's CPU time), the revalidator spending it, the load meter;
 * - access: key lookup, rate limiter, quota ledger, meter (in process; see service.ts);
 * - data sets: live and sandbox, each with its snapshot source, search index, per-version tables
 *   (store table, locations, Eilat cities), answer caches (prices, history, catalog, search,
 *   search items, basket, basket items, basket data) and ETag epoch;
 * - alerts (evaluator and delivery worker), the exports store.
 */
export function createServices(settings: Settings, databases: Databases, options: ServiceOptions = {}): Services {
  const registry = options.registry ?? loadRegistry();
  const now = options.now ?? (() => new Date());
  const coldBudget = options.coldBudget ?? new ColdBudget(250, () => performance.now(), threadCpuMs);
  const pacing: Pacing = { coldBudget, revalidator: new Revalidator(coldBudget), loadMeter: new LoadMeter() };
  const pace = backgroundPace(pacing);
  const access = options.access ?? createAccessService(databases.accounts);

  const data = options.data ?? new DataState(databases.prices);
  const search = options.search ?? new ProductSearch({ pace }).follow(data, databases.prices);
  const live = createDataSet({ settings, registry, now, source: data, search }, pacing);
  const sandbox =
    options.sandbox ?? new Sandbox({ db: openSandboxDatabase(":memory:", registry), registry, log: log.info, error: log.error, demo: { importer: "inline" } });
  const sandboxSet = createDataSet({ settings, registry, now, source: sandbox.data, search: sandbox.searchIndex(pace) }, pacing);

  const alerts = createAlertService({ settings, db: databases, registry, data, now }, options.alerts);
  return {
    settings,
    db: databases,
    registry,
    now,
    data,
    search,
    pacing,
    backgroundPace: pace,
    dataSets: new DataSets(live, sandboxSet, sandbox),
    sandbox,
    access,
    alerts,
    exports: options.exports ?? null,
    liveDataSet: (source, search) => createDataSet({ settings, registry, now, source, search }, pacing),
    stop() {
      alerts.stop();
      access.flush();
    },
  };
}

/** One data set: its snapshot source and search index, with its tables, answer caches and ETag epoch. */
export function createDataSet(base: { settings: Settings; registry: Registry; now: Clock; source: SnapshotSource; search: ProductSearch }, pacing: Pacing): DataSet {
  const { source } = base;
  return {
    settings: base.settings,
    registry: base.registry,
    now: base.now,
    data: source,
    // The current snapshot's database (a snapshot source may switch databases).
    db: {
      get prices() {
        return source.db;
      },
    },
    search: base.search,
    tables: dataTables(source),
    answers: {
      prices: priceAnswers(pacing),
      storePrices: storePriceAnswers(pacing),
      history: historyAnswers(pacing),
      catalog: catalogAnswers(pacing),
      search: searchAnswers(pacing),
      searchItems: searchItemRows(),
      basket: basketAnswers(pacing),
      priceIndex: priceIndexAnswers(pacing),
      priceIndexFull: priceIndexComputations(pacing),
      basketItems: itemPricings(),
      basketData: new BasketData(source),
    },
    epoch: new AnswerEpoch(source),
  };
}
