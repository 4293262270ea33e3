import type { SnapshotSource } from "../../data/snapshot-source.ts";
import type { ProductSearch } from "../../search/index.ts";

export interface Readiness {
  ready: boolean;
  data: boolean;
  search: boolean;
  data_version: number;
  data_updated_at: string | null;
  source: string;
}

/** Ready = price data imported and the search index built. */
export function readiness(deps: { data: Pick<SnapshotSource, "current">; search: Pick<ProductSearch, "ready"> }): Readiness {
  const snapshot = deps.data.current;
  const data = snapshot.version > 0;
  const search = deps.search.ready;
  return {
    ready: data && search,
    data,
    search,
    data_version: snapshot.version,
    data_updated_at: snapshot.updatedAt,
    source: snapshot.source,
  };
}
