import type { Database } from "bun:sqlite";
import { stmt } from "../db/statements.ts";
import { withoutLeadingZeros } from "../identity/product-key.ts";
import type { UnitPromotion } from "./rules.ts";
import { publicPromotionId, unitPromotion, type PromotionTermsRow } from "./promotion-row.ts";

export interface ProductRow {
  id: number;
  scope_chain_id: number;
  barcode: string;
  barcode_key: string;
  name: string;
  manufacturer: string | null;
  unit_qty: string | null;
  size_amount: number | null;
  size_unit: string | null;
  is_weighted: number;
  category: string | null;
}

const PRODUCT_COLUMNS = "p.id, p.scope_chain_id, p.barcode, p.barcode_key, p.name, p.manufacturer, p.unit_qty, p.size_amount, p.size_unit, p.is_weighted, p.category";

/** `"007290000066318"` → `"7290000066318"`; leading zeros are not significant. */
export function barcodeKey(barcode: string): string {
  return withoutLeadingZeros(barcode);
}

/**
 * The product for a barcode: the shared GTIN product first; else a chain-internal code,
 * of the given chain when one is named, else the one sold in most stores.
 */
export function findProduct(db: Database, barcode: string, chainSlug?: string): ProductRow | null {
  const key = barcodeKey(barcode);
  const global = stmt(db, `SELECT ${PRODUCT_COLUMNS} FROM products p WHERE p.scope_chain_id = 0 AND p.barcode_key = ?`).get(key) as ProductRow | null;
  if (global) return global;
  if (chainSlug) {
    return stmt(
      db,
      `SELECT ${PRODUCT_COLUMNS} FROM products p JOIN chains c ON c.id = p.scope_chain_id WHERE c.slug = ? AND p.barcode_key = ?`,
    ).get(chainSlug, key) as ProductRow | null;
  }
  return stmt(
    db,
    `SELECT ${PRODUCT_COLUMNS} FROM products p
      WHERE p.barcode_key = ? AND p.scope_chain_id <> 0
      ORDER BY (SELECT count(*) FROM price_current pc WHERE pc.product_id = p.id) DESC, p.id LIMIT 1`,
  ).get(key) as ProductRow | null;
}

export interface StorePriceRow {
  store_db_id: number;
  store_code: string;
  chain_db_id: number;
  chain_slug: string;
  chain_name: string;
  branch_name: string | null;
  city: string | null;
  region: string | null;
  price: number;
  collected_at: string;
}

/** The optional store filters of the read API: a chain (slug), chains, a city, a region, a set of stores — exact matches. */
export interface StoreFilter {
  chainId?: string;
  /** Only these chains (slugs). */
  chainIds?: readonly string[];
  city?: string;
  region?: string;
  /** Only these stores (db ids): the stores within a `near` radius. */
  storeIds?: readonly number[];
}

/**
 * SQL conditions for a StoreFilter, each as " AND …" on the aliases `c` (chains) and `s`
 * (stores), with their arguments (parameters only, never the values in the text).
 * @example storeFilterSql({ city: "חיפה" }) // → { sql: " AND s.city = ?", args: ["חיפה"] }
 */
export function storeFilterSql(filter: StoreFilter): { sql: string; args: string[] } {
  let sql = "";
  const args: string[] = [];
  if (filter.chainId) {
    sql += " AND c.slug = ?";
    args.push(filter.chainId);
  }
  if (filter.city) {
    sql += " AND s.city = ?";
    args.push(filter.city);
  }
  if (filter.region) {
    sql += " AND s.region = ?";
    args.push(filter.region);
  }
  if (filter.chainIds) {
    sql += " AND c.slug IN (SELECT value FROM json_each(?))";
    args.push(JSON.stringify(filter.chainIds));
  }
  if (filter.storeIds) {
    sql += " AND s.id IN (SELECT value FROM json_each(?))";
    args.push(JSON.stringify(filter.storeIds));
  }
  return { sql, args };
}

/**
 * Every store's current price of a product, with its store and chain; optionally only a chain's,
 * a city's or a region's stores (exact matches). `collected_at` is the store's prices_at, else
 * the row's updated_at — read only for stores without prices_at: it is not in the product index,
 * and looking it up for every row doubled the query's time.
 */
export function storePrices(db: Database, productId: number, filter: StoreFilter = {}): StorePriceRow[] {
  const only = storeFilterSql(filter);
  const where = `pc.product_id = ?${only.sql}`;
  const args: (string | number)[] = [productId, ...only.args];
  const rows = stmt(
    db,
    `SELECT s.id AS store_db_id, s.store_code, c.id AS chain_db_id, c.slug AS chain_slug, c.name AS chain_name,
            s.name AS branch_name, s.city, s.region, pc.price, s.prices_at AS collected_at
       FROM price_current pc
       JOIN stores s ON s.id = pc.store_id
       JOIN chains c ON c.id = s.chain_id
      WHERE ${where}`,
  ).all(...args) as StorePriceRow[];
  const undated = rows.filter((r) => r.collected_at === null);
  if (undated.length > 0) {
    const updated = stmt(db, "SELECT store_id, updated_at FROM price_current WHERE product_id = ? AND store_id IN (SELECT value FROM json_each(?))").all(
      productId,
      JSON.stringify(undated.map((r) => r.store_db_id)),
    ) as { store_id: number; updated_at: string }[];
    const byStore = new Map(updated.map((u) => [u.store_id, u.updated_at]));
    for (const r of undated) r.collected_at = byStore.get(r.store_db_id)!;
  }
  return rows;
}

interface PromotionRow extends PromotionTermsRow {
  store_id: number;
}

export { publicPromotionId } from "./promotion-row.ts";

/** True when `now` lies between the promotion's start and end (open ends allowed). */
export function isActive(startsAt: string | null, endsAt: string | null, now: number): boolean {
  if (startsAt && Date.parse(startsAt) > now) return false;
  if (endsAt && Date.parse(endsAt) <= now) return false;
  return true;
}

/**
 * Active, non-gift promotions of a product, per store (db id), with item overrides merged.
 * Club-only and coupon promotions are included (flagged); the pricing rules skip them.
 */
export function activePromotionsByStore(db: Database, productId: number, now: Date): Map<number, UnitPromotion[]> {
  return productPromotions(db, productId, now).byStore;
}

/**
 * Like activePromotionsByStore, plus `validUntil`: the first instant after `now` at which one of
 * the product's promotions starts or ends (Infinity when none will), i.e. until when answers
 * computed from this set of active promotions stay right.
 */
export function productPromotions(db: Database, productId: number, now: Date): { byStore: Map<number, UnitPromotion[]>; validUntil: number } {
  const rows = stmt(
    db,
    `SELECT ps.store_id, pr.id AS promotion_db_id, pi.list_id, c.slug AS chain_slug, pr.promotion_code, pr.starts_at, pr.ends_at,
            coalesce(pi.min_qty, pr.min_qty) AS min_qty, coalesce(pi.max_qty, pr.max_qty) AS max_qty,
            coalesce(pi.discounted_price, pr.discounted_price) AS discounted_price,
            coalesce(pi.discount_rate, pr.discount_rate) AS discount_rate,
            pr.is_club_only, pr.is_coupon, pr.min_purchase_amount
       FROM promotion_items pi
       JOIN promotions pr ON pr.id = pi.promotion_id
       JOIN chains c ON c.id = pr.chain_id
       JOIN promotion_stores ps ON ps.list_id = pi.list_id
      WHERE pi.product_id = ? AND pi.is_gift = 0`,
  ).all(productId) as (PromotionRow & { promotion_db_id: number; list_id: number })[];
  const at = now.getTime();
  const byStore = new Map<number, UnitPromotion[]>();
  let validUntil = Infinity;
  // Rows repeat per store (each store gets the promotion only when its own item list names the
  // product); a promotion's dates and unit figures are parsed once per item list.
  const seen = new Map<number, UnitPromotion | null>();
  for (const r of rows) {
    const key = r.list_id;
    let promotion = seen.get(key);
    if (promotion === undefined) {
      const starts = r.starts_at ? Date.parse(r.starts_at) : NaN;
      const ends = r.ends_at ? Date.parse(r.ends_at) : NaN;
      if (starts > at && starts < validUntil) validUntil = starts;
      if (ends > at && ends < validUntil) validUntil = ends;
      promotion = isActive(r.starts_at, r.ends_at, at)
        ? unitPromotion(r, publicPromotionId(r.chain_slug, r.promotion_code))
        : null;
      seen.set(key, promotion);
    }
    if (!promotion) continue;
    const list = byStore.get(r.store_id);
    if (list) list.push(promotion);
    else byStore.set(r.store_id, [promotion]);
  }
  return { byStore, validUntil };
}
