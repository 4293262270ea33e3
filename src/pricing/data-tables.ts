import type { DataTables } from "../deps.ts";
import type { SnapshotSource } from "../data/snapshot-source.ts";
import { readEilatCities } from "./eilat.ts";
import { readStoreTable } from "./store-table.ts";
import { readLocations } from "./locations.ts";
import { PerVersion } from "./per-version.ts";

/** A data set's tables read once per data version (see DataTables in deps.ts). */
export function dataTables(source: Pick<SnapshotSource, "current" | "db">): DataTables {
  return {
    stores: new PerVersion(source, readStoreTable),
    locations: new PerVersion(source, readLocations),
    eilatCities: new PerVersion(source, readEilatCities),
  };
}
