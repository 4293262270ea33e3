import type { Database } from "bun:sqlite";
import type { Settings } from "./config.ts";
import type { Databases } from "./db/open.ts";
import type { Registry } from "./registry.ts";
import type { SnapshotSource } from "./data/snapshot-source.ts";
import type { ProductSearch } from "./search/index.ts";
import type { ColdBudget } from "./serving/cold-budget.ts";
import type { Revalidator } from "./serving/revalidator.ts";
import type { LoadMeter } from "./serving/load-meter.ts";
import type { AnswerEpoch } from "./serving/answer-epoch.ts";

/**
 * The types of what services depend on — a leaf module: it imports types only, from modules that
 * never import it back, so no service imports the composition root (services.ts) or the app.
 * Services take the slice they use (PricingData, DataSet, …), never the whole Services.
 */

/** The current time; tests pin it. */
export type Clock = () => Date;

/**
 * How cold work shares the serving thread (one per process, shared by both data sets): the cold
 * budget answer caches and background revalidation spend, the revalidator, the API load meter.
 */
export interface Pacing {
  coldBudget: ColdBudget;
  revalidator: Revalidator;
  loadMeter: LoadMeter;
}

/**
 * A data set's tables read once per data version (store table, store locations, Eilat cities).
 * Each is declared by the module that reads it (`declare module "…/deps.ts"`, TypeScript's
 * declaration merging) and built by dataTables() (src/pricing/data-tables.ts), so this module
 * needs none of their types and the compiler checks that every declared table is built.
 */
export interface DataTables {}

/**
 * A data set's answer caches (prices, history, catalog, search, basket, …), declared like
 * DataTables by the module that owns each and built by createServices (answerCaches()).
 */
export interface AnswerCaches {}

/** What pricing reads: a data set's prices database, its data version and its per-version tables. */
export interface PricingData {
  db: { readonly prices: Database };
  data: SnapshotSource;
  tables: DataTables;
}

/**
 * One data set the API serves — the live data, or test mode's sandbox — with everything kept per
 * data set: tables, answer caches, the ETag epoch, the search index. Answers of one data set are
 * never served from the other's caches.
 */
export interface DataSet extends PricingData {
  settings: Settings;
  registry: Registry;
  now: Clock;
  search: ProductSearch;
  answers: AnswerCaches;
  /** What ETags follow besides the data version (answer-epoch.ts). */
  epoch: AnswerEpoch;
}

/**
 * What app-wide services (alerts, portal, probes, docs) read: the settings, both databases, the
 * chain registry, the live data's snapshot source, the clock.
 */
export interface AppData {
  settings: Settings;
  db: Databases;
  registry: Registry;
  data: SnapshotSource;
  now: Clock;
}
