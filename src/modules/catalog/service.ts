import { withoutLeadingZeros } from "../../identity/product-key.ts";
import type { DataSet, Pacing } from "../../deps.ts";
import { unitPromotion } from "../../pricing/promotion-row.ts";
import { stmt } from "../../db/statements.ts";
import { cursorScope, decodeCursor, encodeCursor } from "../../http/encoding/cursor.ts";
import { ApiError } from "../../errors/api-error.ts";
import { formatIls } from "../../lib/time.ts";
import { unitPromotionPrice } from "../../pricing/rules.ts";
import { isActive } from "../../pricing/queries.ts";
import { AnswerCache, type Answered } from "../../serving/answer-cache.ts";
import { PrebuiltJson } from "../../http/prebuilt/prebuilt-json.ts";

interface CatalogRow {
  barcode: string;
  product_id: number;
  scope_chain_id: number;
  name: string;
  manufacturer: string | null;
  category: string | null;
  price_min: number;
  price_max: number;
  store_count: number;
}

export interface CatalogOptions {
  limit: number;
  cursor?: string;
  q?: string;
  category?: string;
}

type Position = [string, number];
const isPosition = (k: unknown): k is Position => Array.isArray(k) && typeof k[0] === "string" && Number.isInteger(k[1]);

/** `50%_x` → `50\%\_x`, for LIKE … ESCAPE '\'. */
function likeEscape(text: string): string {
  return text.replace(/[\\%_]/g, (c) => "\\" + c);
}

/**
 * Products of the page that an active single-unit promotion open to all customers covers, and
 * until when that holds (the next start or end of one of the page's promotions).
 */
function promotedIds(deps: DataSet, chainDbId: number, rows: CatalogRow[]): { ids: Set<number>; validUntil: number } {
  if (rows.length === 0) return { ids: new Set(), validUntil: Infinity };
  const byId = new Map(rows.map((r) => [r.product_id, r]));
  const placeholders = rows.map(() => "?").join(",");
  const promos = deps.db.prices
    .query(
      `SELECT pi.product_id, pr.starts_at, pr.ends_at, coalesce(pi.min_qty, pr.min_qty) AS min_qty, coalesce(pi.max_qty, pr.max_qty) AS max_qty,
              coalesce(pi.discounted_price, pr.discounted_price) AS discounted_price, coalesce(pi.discount_rate, pr.discount_rate) AS discount_rate,
              pr.is_club_only, pr.is_coupon, pr.min_purchase_amount
         FROM promotion_items pi CROSS JOIN promotions pr ON pr.id = pi.promotion_id
        WHERE pr.chain_id = ? AND pi.is_gift = 0 AND pi.product_id IN (${placeholders})`,
    )
    .all(chainDbId, ...rows.map((r) => r.product_id)) as any[];
  const now = deps.now().getTime();
  const out = new Set<number>();
  let validUntil = Infinity;
  for (const p of promos) {
    for (const edge of [p.starts_at, p.ends_at]) {
      const at = edge ? Date.parse(edge) : NaN;
      if (at > now && at < validUntil) validUntil = at;
    }
    if (!isActive(p.starts_at, p.ends_at, now)) continue;
    const shelf = byId.get(p.product_id)!.price_max;
    const unit = unitPromotionPrice(shelf, unitPromotion(p, ""));
    if (unit !== null) out.add(p.product_id);
  }
  return { ids: out, validUntil };
}

export interface CatalogPage {
  /** The page's items, serialized once (see prebuilt-json.ts). */
  items: PrebuiltJson;
  nextCursor: string | null;
}

// Whole pages per data version, each until the next start or end of one of its promotions:
// apps walk the same catalogs page by page. Bounded by the bytes held.
const PAGE_BYTES = 16 * 2 ** 20;

declare module "../../deps.ts" {
  interface AnswerCaches {
    catalog: AnswerCache<CatalogPage>;
  }
}

/** A data set's catalog pages (createServices builds one per data set). */
export function catalogAnswers(pacing: Pacing): AnswerCache<CatalogPage> {
  return AnswerCache.of<CatalogPage>(pacing, PAGE_BYTES, "catalog");
}

/**
 * chainCatalog with its pages cached, and the data each reflects (see AnswerCache).
 * @example cachedCatalog(deps, "shufersal", { limit: 20 }).value.nextCursor // "eyJ2Ijo…"
 */
export function cachedCatalog(deps: DataSet, chainSlug: string, options: CatalogOptions): Answered<CatalogPage> {
  const cache = deps.answers.catalog;
  const key = JSON.stringify([chainSlug, options.limit, options.cursor ?? "", options.q ?? "", options.category ?? ""]);
  return cache.get(deps, key, () => {
    const { items, nextCursor, validUntil } = chainCatalog(deps, chainSlug, options);
    const page: CatalogPage = { items: PrebuiltJson.of(items), nextCursor };
    return { value: page, validUntil, weight: page.items.size + key.length * 2 };
  });
}

/** GET /api/v1/chains/{id}/catalog/: a chain's products in barcode order, keyset-paginated. */
export function chainCatalog(deps: DataSet, chainSlug: string, options: CatalogOptions) {
  const chain = deps.registry.bySlug.get(chainSlug);
  if (!chain) throw new ApiError("chain_not_found", `No chain with id ${chainSlug}; GET /api/v1/chains/ lists them.`);
  const chainRow = stmt(deps.db.prices, "SELECT id FROM chains WHERE slug = ?").get(chainSlug) as { id: number } | null;
  const scope = cursorScope(deps.data);
  const queryKey = JSON.stringify(["catalog", chainSlug, options.q ?? "", options.category ?? "", options.limit]);
  const after: Position = options.cursor ? decodeCursor(options.cursor, scope, queryKey, isPosition) : ["", 0];
  if (!chainRow) return { items: [], nextCursor: null, validUntil: Infinity };

  // Row-value comparison so SQLite seeks the primary key to the cursor instead of filtering from the start.
  // Generic products (scope -1) group several chains' items: the chain's own items are listed instead.
  const where = ["cp.chain_id = ?", "(cp.barcode, cp.product_id) > (?, ?)", "p.scope_chain_id >= 0"];
  const args: (string | number)[] = [chainRow.id, after[0], after[1]];
  if (options.category) {
    where.push("p.category = ?");
    args.push(options.category);
  }
  if (options.q) {
    const q = options.q.trim();
    if (/^\d+$/.test(q)) {
      where.push("(cp.barcode LIKE ? ESCAPE '\\' OR p.barcode_key LIKE ? ESCAPE '\\')");
      args.push(`${q}%`, `${withoutLeadingZeros(q)}%`);
    } else {
      where.push("p.name LIKE ? ESCAPE '\\'");
      args.push(`%${likeEscape(q)}%`);
    }
  }
  args.push(options.limit + 1);
  const rows = stmt(
    deps.db.prices,
    `SELECT cp.barcode, cp.product_id, p.scope_chain_id, p.name, p.manufacturer, p.category, cp.price_min, cp.price_max, cp.store_count
       FROM chain_products cp JOIN products p ON p.id = cp.product_id
      WHERE ${where.join(" AND ")}
      ORDER BY cp.barcode, cp.product_id
      LIMIT ?`,
  ).all(...args) as CatalogRow[];
  const page = rows.slice(0, options.limit);
  const { ids: promoted, validUntil } = promotedIds(deps, chainRow.id, page);
  const last = page[page.length - 1];
  return {
    items: page.map((r) => ({
      barcode: r.barcode,
      // A chain-internal code names the item only with its chain (the identity rule).
      chain_id: r.scope_chain_id > 0 ? chainSlug : null,
      name: r.name,
      manufacturer: r.manufacturer,
      category: r.category,
      price_min_ils: formatIls(r.price_min),
      price_max_ils: formatIls(r.price_max),
      store_count: r.store_count,
      is_on_promotion: promoted.has(r.product_id),
    })),
    nextCursor: rows.length > options.limit && last ? encodeCursor<Position>(scope, queryKey, [last.barcode, last.product_id]) : null,
    validUntil,
  };
}
