import type { AppDeps } from "../../app.ts";

export interface Readiness {
  ready: boolean;
  data: boolean;
  search: boolean;
  data_version: number;
  data_updated_at: string | null;
  source: string;
}

/** Ready = price data imported and (when the app has a search index) the index built. */
export function readiness(deps: AppDeps): Readiness {
  const snapshot = deps.data.current;
  const data = snapshot.version > 0;
  const search = deps.search ? deps.search.ready : true;
  return {
    ready: data && search,
    data,
    search,
    data_version: snapshot.version,
    data_updated_at: snapshot.updatedAt,
    source: snapshot.source,
  };
}
