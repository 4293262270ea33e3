import type { AppDeps } from "../../app.ts";
import type { ChainItem } from "./model.ts";
import { ApiError } from "../../http/problem.ts";

/** A chain is stale when its newest data is older than this. */
export const STALE_AFTER_MS = 36 * 3600_000;

interface Figures {
  slug: string;
  store_count: number;
  product_count: number;
  last_data_at: string | null;
  last_attempt_at: string | null;
  last_success_at: string | null;
  last_error: string | null;
}

// Per-chain counts change only with the data version; computed once per version.
let cache: { db: unknown; version: number; figures: Map<string, Figures> } | undefined;

function figures(deps: AppDeps): Map<string, Figures> {
  const version = deps.data.current.version;
  if (cache && cache.db === deps.db.prices && cache.version === version) return cache.figures;
  const rows = deps.db.prices
    .query(
      `SELECT c.slug,
              (SELECT count(*) FROM stores s WHERE s.chain_id = c.id) AS store_count,
              (SELECT count(DISTINCT pc.product_id) FROM stores s JOIN price_current pc ON pc.store_id = s.id
                WHERE s.chain_id = c.id) AS product_count,
              h.last_data_at, h.last_attempt_at, h.last_success_at, h.last_error
         FROM chains c LEFT JOIN chain_health h ON h.chain_slug = c.slug`,
    )
    .all() as Figures[];
  const map = new Map(rows.map((r) => [r.slug, r]));
  cache = { db: deps.db.prices, version, figures: map };
  return map;
}

/** Every chain of the registry with its figures, also chains with no data yet. */
export function listChains(deps: AppDeps): ChainItem[] {
  const now = deps.now().getTime();
  const all = figures(deps);
  const source = deps.data.current.source;
  return deps.registry.chains.map((chain) => {
    const f = all.get(chain.slug);
    const productCount = f?.product_count ?? 0;
    const last = f?.last_data_at ?? null;
    const status: ChainItem["status"] =
      productCount === 0 || !last ? "no_data" : now - Date.parse(last) > STALE_AFTER_MS ? "stale" : "ok";
    return {
      chain_id: chain.slug,
      name: chain.name,
      name_en: chain.name_en,
      chain_codes: chain.chain_codes,
      store_count: f?.store_count ?? 0,
      product_count: productCount,
      last_updated_at: last,
      status,
      source: status === "no_data" ? "none" : source,
      last_fetch_attempt_at: f?.last_attempt_at ?? null,
      last_fetch_success_at: f?.last_success_at ?? null,
      last_fetch_error: f?.last_error ?? null,
    };
  });
}

/**
 * Throws 404 chain_not_found unless the registry knows the chain; `param` names the request
 * value that carried it when it came from a query (filters), not the path.
 */
export function requireChain(deps: AppDeps, slug: string, param?: string): void {
  if (deps.registry.bySlug.has(slug)) return;
  throw new ApiError("chain_not_found", `No chain with id ${slug}; GET /api/v1/chains/ lists them.`, param ? { param } : {});
}
