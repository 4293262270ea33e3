import type { DataSet } from "../../deps.ts";
import { STALE_AFTER_MS, type ChainItem } from "./model.ts";
import { ApiError } from "../../errors/api-error.ts";
import { stmt } from "../../db/statements.ts";


interface Counts {
  slug: string;
  store_count: number;
  product_count: number;
}

interface Health {
  slug: string;
  last_data_at: string | null;
  last_attempt_at: string | null;
  last_success_at: string | null;
  last_error: string | null;
  files_fetched: number;
  zero_rows: number;
  fetch_status: "ok" | "failing" | "blocked" | null;
  status_reason: string | null;
  newest_file_at: string | null;
  next_run_at: string | null;
}

// Per-chain counts change only with the data version: computed once per version. Health is
// read on every request: fetch attempts and errors are recorded without a new data version (a
// failed fetch imports nothing).
let cache: { db: unknown; version: number; counts: Map<string, Counts> } | undefined;

function counts(deps: DataSet): Map<string, Counts> {
  const version = deps.data.current.version;
  if (cache && cache.db === deps.db.prices && cache.version === version) return cache.counts;
  const rows = deps.db.prices
    .query(
      // chain_products holds one row per chain and product sold: no scan of price_current. Generic
      // products (`g-…`, loose produce grouped across chains) are not the chain's own products.
      `SELECT c.slug,
              (SELECT count(*) FROM stores s WHERE s.chain_id = c.id AND s.closed_at IS NULL) AS store_count,
              (SELECT count(*) FROM chain_products cp WHERE cp.chain_id = c.id AND cp.barcode NOT GLOB 'g-*') AS product_count
         FROM chains c`,
    )
    .all() as Counts[];
  const map = new Map(rows.map((r) => [r.slug, r]));
  cache = { db: deps.db.prices, version, counts: map };
  return map;
}

function health(deps: DataSet): Map<string, Health> {
  const rows = stmt(
    deps.db.prices,
    "SELECT chain_slug AS slug, last_data_at, last_attempt_at, last_success_at, last_error, files_fetched, zero_rows, fetch_status, status_reason, newest_file_at, next_run_at FROM chain_health",
  ).all() as Health[];
  return new Map(rows.map((r) => [r.slug, r]));
}

/** Every chain of the registry with its figures, also chains with no data yet. */
export function listChains(deps: DataSet): ChainItem[] {
  const now = deps.now().getTime();
  const all = counts(deps);
  const healthOf = health(deps);
  const source = deps.data.current.source;
  return deps.registry.chains.map((chain) => {
    const f = all.get(chain.slug);
    const h = healthOf.get(chain.slug);
    const productCount = f?.product_count ?? 0;
    const last = h?.last_data_at ?? null;
    const dataStatus: ChainItem["status"] = productCount === 0 || !last ? "no_data" : now - Date.parse(last) > STALE_AFTER_MS ? "stale" : "ok";
    // The portal's side wins: a blocked or failing portal is what the operator must act on.
    const portal = h?.fetch_status === "blocked" || h?.fetch_status === "failing" ? h.fetch_status : null;
    const status = portal ?? dataStatus;
    return {
      chain_id: chain.slug,
      name: chain.name,
      name_en: chain.name_en,
      chain_codes: chain.chain_codes,
      store_count: f?.store_count ?? 0,
      product_count: productCount,
      last_updated_at: last,
      status,
      status_reason: statusReason(status, h, last),
      last_attempt_at: h?.last_attempt_at ?? null,
      next_attempt_at: h?.next_run_at ?? null,
      newest_file_at: h?.newest_file_at ?? null,
      active: chain.active,
      inactive_reason: chain.inactive?.reason ?? null,
      inactive_since: chain.inactive?.since ?? null,
      merged_into: chain.inactive?.merged_into ?? null,
      source: dataStatus === "no_data" ? "none" : source,
      last_fetch_attempt_at: h?.last_attempt_at ?? null,
      last_fetch_success_at: h?.last_success_at ?? null,
      last_fetch_files: h?.files_fetched ?? 0,
      last_fetch_error: h?.last_error ?? null,
      empty_file_flagged: h?.zero_rows === 1,
    };
  });
}

function statusReason(status: ChainItem["status"], h: Health | undefined, last: string | null): string | null {
  switch (status) {
    case "ok":
      return null;
    case "blocked":
    case "failing":
      return h?.status_reason ?? h?.last_error ?? "the last fetch attempt failed";
    case "stale":
      return `newest data from ${last}, older than 36 hours`;
    case "no_data":
      return "nothing imported for the chain yet";
  }
}

/**
 * Throws 404 chain_not_found unless the registry knows the chain; `param` names the request
 * value that carried it when it came from a query (filters), not the path.
 */
export function requireChain(deps: DataSet, slug: string, param?: string): void {
  if (deps.registry.bySlug.has(slug)) return;
  throw new ApiError("chain_not_found", `No chain with id ${slug}; GET /api/v1/chains/ lists them.`, param ? { param } : {});
}
