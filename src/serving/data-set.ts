import { Elysia } from "elysia";
import type { DataSet } from "../deps.ts";
import type { Sandbox } from "../sandbox/sandbox.ts";
import { requestSlot } from "../http/request/request-slot.ts";

/**
 * The data sets of one app — the live data and test mode's sandbox, each with its own tables,
 * answer caches and ETag epoch (see DataSet in deps.ts), built by createServices — and the rule
 * that picks one per request (the access layer applies it, knowing the key): `sk_test_` keys read
 * the sandbox, every other caller the live data. When the live data is itself the embedded demo
 * (MEHIR_SOURCE=demo and no live import), both read it: the sandbox would be the same data.
 */
export class DataSets {
  constructor(
    private liveSet: DataSet,
    private readonly sandboxSet: DataSet,
    /** Makes the sandbox's data on first need. */
    private readonly sandbox: Pick<Sandbox, "ready" | "ensure">,
  ) {}

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
 * services they were built with, so a new route serves test keys from the sandbox with no more code.
 *
 * @example new Elysia().use(servedData).get("/api/v1/x", ({ dataSet }) => service(dataSet))
 */
export const servedData = new Elysia({ name: "served-data" }).resolve({ as: "scoped" }, ({ request }) => ({ dataSet: dataSetOf(request) }));
