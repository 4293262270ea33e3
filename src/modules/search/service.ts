import type { DataSet, Pacing } from "../../deps.ts";
import { stmt } from "../../db/statements.ts";
import { GENERIC_SCOPE } from "../../identity/resolve.ts";
import { decodeCursor, encodeCursor, type CursorScope } from "../../http/encoding/cursor.ts";
import { ApiError, invalidParameter } from "../../errors/api-error.ts";
import { requireData } from "../../serving/require-data.ts";
import { CATEGORIES, categoryBySlug, classify } from "../../search/categories.ts";
import { formatIls } from "../../lib/time.ts";
import type { SearchQuery } from "./model.ts";
import { ResultCache } from "../../serving/result-cache.ts";
import { PrebuiltJson } from "../../http/prebuilt/prebuilt-json.ts";
import { AnswerCache, type Answered } from "../../serving/answer-cache.ts";

export type SearchDeps = DataSet;

export interface ItemRow {
  id: number;
  barcode: string;
  scope_chain_id: number;
  scope_slug: string | null;
  is_weighted: number;
  name: string;
  manufacturer: string | null;
  category: string | null;
  unit_qty: string | null;
  size_amount: number | null;
  size_unit: string | null;
  chain_count: number;
  min_price: number | null;
}

const SIZE_UNITS = new Set(["g", "ml", "unit"]);

/** `gtin`: a barcode shared by all chains; `chain_item`: one chain's internal code; `generic`: loose produce grouped across chains. */
function itemKind(scope: number): "gtin" | "chain_item" | "generic" {
  return scope === GENERIC_SCOPE ? "generic" : scope > 0 ? "chain_item" : "gtin";
}
const isOffset = (k: unknown): k is number => Number.isInteger(k) && (k as number) >= 0;

/** The image of a product: the operator's template (`{barcode}` substituted) or our generated label. */
export function imageUrl(deps: DataSet, origin: string, barcode: string): string {
  const template = deps.settings.imageUrlTemplate;
  if (template) return template.replaceAll("{barcode}", encodeURIComponent(barcode));
  return `${origin}/images/products/${encodeURIComponent(barcode)}.svg`;
}

/** 503 data_not_ready until data is imported and the first index is built. */
function requireIndex(deps: SearchDeps): void {
  requireData(deps);
  if (!deps.search.ready) {
    throw new ApiError("data_not_ready", "The search index is being built; try again shortly.", { headers: { "retry-after": "5" } });
  }
}

/** `chains.id` of a chain slug; 404 chain_not_found when the registry does not know it. */
function chainDbId(deps: DataSet, slug: string): number {
  if (!deps.registry.bySlug.get(slug)) throw new ApiError("chain_not_found", `No chain with id ${slug}; GET /api/v1/chains/ lists them.`);
  const row = stmt(deps.db.prices, "SELECT id FROM chains WHERE slug = ?").get(slug) as { id: number } | null;
  return row?.id ?? -1;
}

/**
 * Item rows (product, chain count, lowest price) per data version: reading a page's rows joins
 * every chain's figures of 20 products (~1.4 ms on national data); the same products come back
 * page after page. Bounded; dropped when the data version changes.
 */
const ITEM_ROWS = 200_000;

/** A data set's search item rows (createServices builds one per data set). */
export function searchItemRows(): ResultCache<ItemRow | null> {
  return new ResultCache<ItemRow | null>(ITEM_ROWS);
}

function pageRows(deps: DataSet, ids: number[], chainId: number | null): Map<number, ItemRow> {
  if (ids.length === 0) return new Map();
  const cache = deps.answers.searchItems;
  const version = deps.data.current.version;
  const out = new Map<number, ItemRow>();
  const missing: number[] = [];
  for (const id of ids) {
    const hit = cache.get(version, `${chainId ?? ""}:${id}`, 0);
    if (hit === undefined) missing.push(id);
    else if (hit) out.set(id, hit);
  }
  if (missing.length === 0) return out;
  const loaded = loadRows(deps, missing, chainId);
  for (const id of missing) {
    const row = loaded.get(id) ?? null;
    cache.set(version, `${chainId ?? ""}:${id}`, row, Infinity, 1);
    if (row) out.set(id, row);
  }
  return out;
}

function loadRows(deps: DataSet, ids: number[], chainId: number | null): Map<number, ItemRow> {
  const rows = stmt(
    deps.db.prices,
    `SELECT p.id, p.barcode, p.scope_chain_id, sc.slug AS scope_slug, p.is_weighted, p.name, p.manufacturer, p.category, p.unit_qty, p.size_amount, p.size_unit,
            count(cp.chain_id) AS chain_count,
            min(CASE WHEN ?1 IS NULL OR cp.chain_id = ?1 THEN cp.price_min END) AS min_price
       FROM products p LEFT JOIN chain_products cp ON cp.product_id = p.id LEFT JOIN chains sc ON sc.id = p.scope_chain_id
      WHERE p.id IN (SELECT value FROM json_each(?2))
      GROUP BY p.id`,
  ).all(chainId, JSON.stringify(ids)) as ItemRow[];
  return new Map(rows.map((r) => [r.id, r]));
}

export interface SearchPage {
  /** The page's items, serialized once (see prebuilt-json.ts). */
  items: PrebuiltJson;
  total: number;
  nextCursor: string | null;
}

/**
 * Whole answers per index and data version: shoppers' queries repeat (the same words, the same
 * first pages), and evaluating one costs ~0.3 ms against ~0.01 ms to send it again. Bounded by
 * the bytes held; dropped when the index or the data changes.
 */
const ANSWER_BYTES = 32 * 2 ** 20;

declare module "../../deps.ts" {
  interface AnswerCaches {
    search: AnswerCache<SearchPage>;
    searchItems: ResultCache<ItemRow | null>;
  }
}

/** A data set's search answers (createServices builds one per data set). */
export function searchAnswers(pacing: Pacing): AnswerCache<SearchPage> {
  return AnswerCache.of<SearchPage>(pacing, ANSWER_BYTES, "search");
}

/**
 * GET /api/v1/product-search/ with its answers cached (see searchProducts), and the data each
 * reflects (just after an import, possibly the previous version's: see AnswerCache).
 * @example cachedSearch(deps, { q: "במבה", limit: 20 }, "http://localhost:8080").value.total // 12
 */
export function cachedSearch(deps: SearchDeps, query: SearchQuery, origin: string): Answered<SearchPage> {
  requireIndex(deps);
  const cache = deps.answers.search;
  const key = JSON.stringify([origin, query.q, query.limit, query.cursor ?? "", query.chain_id ?? "", query.category ?? ""]);
  return cache.get(
    deps,
    key,
    () => {
      const { items, total, nextCursor } = searchProducts(deps, query, origin);
      const page: SearchPage = { items: PrebuiltJson.of(items), total, nextCursor };
      return { value: page, validUntil: Infinity, weight: page.items.size + key.length * 2 };
    },
    // Answers read the index and the chains' figures: a new one of either is a new generation.
    () => deps.data.current.version * 1_000_003 + Math.max(0, deps.search.version),
  );
}

/**
 * GET /api/v1/product-search/: a relevance-ordered page of products for a free-text query,
 * optionally only those sold by a chain or of a category. Offsets travel in cursors bound
 * to the index's data version, the query and the filters.
 */
export function searchProducts(deps: SearchDeps, query: SearchQuery, origin: string) {
  requireIndex(deps);
  if (query.category !== undefined && !categoryBySlug(query.category)) {
    throw invalidParameter("category", `Unknown category ${query.category}; one of: ${CATEGORIES.map((c) => c.slug).join(", ")}.`);
  }
  const chainId = query.chain_id !== undefined ? chainDbId(deps, query.chain_id) : null;
  const scope: CursorScope = { dataSet: deps.data.name, version: deps.search.version };
  const queryKey = JSON.stringify(["product-search", query.q, query.chain_id ?? "", query.category ?? ""]);
  const offset = query.cursor ? decodeCursor(query.cursor, scope, queryKey, isOffset) : 0;
  const page = deps.search.search({ q: query.q, chainId: chainId ?? undefined, category: query.category, limit: query.limit, offset });
  const rows = pageRows(deps, page.ids, chainId);
  const items = [];
  for (const id of page.ids) {
    const row = rows.get(id);
    if (!row) continue; // removed by an import after the index was built
    items.push({
      barcode: row.barcode,
      // The identity rule: `barcode` with `chain_id` (when not null) names the item everywhere.
      chain_id: row.scope_chain_id > 0 ? row.scope_slug : null,
      kind: itemKind(row.scope_chain_id),
      sold_by: row.is_weighted ? ("kg" as const) : null,
      name: row.name,
      category: deps.search.categoryOf(id) ?? row.category ?? classify(row.name, row.manufacturer),
      image_url: imageUrl(deps, origin, row.barcode),
      manufacturer: row.manufacturer,
      unit_qty: row.unit_qty,
      size: row.size_amount,
      unit: row.size_unit && SIZE_UNITS.has(row.size_unit) ? (row.size_unit as "g" | "ml" | "unit") : null,
      chain_count: row.chain_count,
      min_price_ils: row.min_price === null ? null : formatIls(row.min_price),
    });
  }
  const next = offset + query.limit;
  return {
    items,
    total: page.total,
    nextCursor: next < page.total ? encodeCursor(scope, queryKey, next) : null,
  };
}
