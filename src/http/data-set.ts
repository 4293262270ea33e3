import { Elysia } from "elysia";
import type { AppDeps } from "../app.ts";
import type { Sandbox } from "../sandbox/sandbox.ts";
import { requestSlot } from "./request-slot.ts";

/**
 * One data set the API serves: the app's deps with the prices database, data state and search
 * index of either the live data or the test-mode sandbox. Everything the services keep per deps
 * object (answer caches, ETag epochs, statement caches per database, store tables) is therefore
 * kept per data set, never mixed.
 */
export type DataSet = AppDeps & { search: NonNullable<AppDeps["search"]> };

/**
 * The data sets of one app and the rule that picks one per request (the access layer applies it,
 * knowing the key): `sk_test_` keys read the sandbox, every other caller the live data. When the
 * live data is itself the embedded demo (MEHIR_SOURCE=demo and no live import), both read it:
 * the sandbox would be the same data.
 */
export class DataSets {
  private sandboxSet: DataSet | null = null;
  private liveSet: DataSet;

  constructor(
    live: DataSet,
    private readonly sandbox: Sandbox,
    /** The pace of the sandbox's search index builds (the app's background pace). */
    pace: (workedMs: number) => Promise<void>,
  ) {
    this.liveSet = live;
    this.sandboxSet = { ...live, db: { ...live.db, prices: sandbox.db }, data: sandbox.data, search: sandbox.searchIndex(pace) };
  }

  /** The live data set requests select now. */
  get live(): DataSet {
    return this.liveSet;
  }

  /**
   * Serves another live data set from now on (a replica's new snapshot, src/cluster/): requests
   * that selected the previous one finish on it, so an answer never mixes two snapshots.
   */
  replaceLive(next: DataSet): void {
    this.liveSet = next;
  }

  /** Whether test keys read a sandbox of their own (the live data is, or will be, live portal data). */
  get separate(): boolean {
    return this.live.settings.source === "live" || this.live.data.current.source === "live";
  }

  /**
   * The data set a key of this kind reads; null while the sandbox a test key needs is being
   * made (the call starts making it when it is absent).
   */
  forKey(kind: "live" | "test" | "publishable"): DataSet | null {
    if (kind !== "test" || !this.separate) return this.live;
    if (!this.sandbox.ready) {
      void this.sandbox.ensure();
      return null;
    }
    return this.sandboxSet;
  }

  /** The sandbox's data set whether or not test keys read it now (metrics, public images). */
  get sandboxData(): DataSet | null {
    return this.sandbox.ready ? this.sandboxSet : null;
  }
}

const selected = requestSlot<DataSet>("dataSet");

/** Records the data set a request reads (the access layer does, for every request). */
export function selectDataSet(request: Request, dataSet: DataSet): void {
  selected.set(request, dataSet);
}

/** The data set selected for a request. */
export function dataSetOf(request: Request): DataSet {
  const dataSet = selected.get(request);
  if (!dataSet) throw new Error("no data set selected for this request (is the access plugin registered before the route?)");
  return dataSet;
}

/**
 * Gives a module's handlers `dataSet`: the data the request reads (live, or the sandbox for a
 * `sk_test_` key). Routes read prices, search and data state through it, never through the
 * deps they were built with, so a new route serves test keys from the sandbox with no more code.
 *
 * @example new Elysia().use(servedData).get("/api/v1/x", ({ dataSet }) => service(dataSet))
 */
export const servedData = new Elysia({ name: "served-data" }).resolve({ as: "scoped" }, ({ request }) => ({ dataSet: dataSetOf(request) }));
