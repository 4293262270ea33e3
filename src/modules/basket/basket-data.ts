import type { Database } from "bun:sqlite";
import type { DataSet } from "../../deps.ts";
import type { SnapshotSource } from "../../data/snapshot-source.ts";
import { ResultCache } from "../../serving/result-cache.ts";
import { productKey } from "../../identity/product-id.ts";
import { resolveProduct, type ResolveResult } from "../../identity/resolve.ts";
import type { PromotionTermsRow } from "../../pricing/promotion-row.ts";

/** A chain's figures for a product (chain_products). */
export interface ChainFigureRow {
  chain_id: number;
  product_id: number;
  price_mode: number;
  store_count: number;
}

/** A non-gift promotion item with the item's overrides merged (active or not: callers filter by time). */
export interface PromotionRow extends PromotionTermsRow {
  product_id: number;
  promotion_db_id: number;
  /** The item list naming the product: the promotion holds for it in the stores linked to that list. */
  list_id: number;
  chain_id: number;
  /** starts_at / ends_at as epoch ms (NaN when open), parsed once when loaded. */
  startsMs: number;
  endsMs: number;
}

const PROMOTION_COLUMNS = `pi.product_id, pr.id AS promotion_db_id, pi.list_id, pr.chain_id, c.slug AS chain_slug, pr.promotion_code, pr.starts_at, pr.ends_at,
  coalesce(pi.min_qty, pr.min_qty) AS min_qty, coalesce(pi.max_qty, pr.max_qty) AS max_qty,
  coalesce(pi.discounted_price, pr.discounted_price) AS discounted_price, coalesce(pi.discount_rate, pr.discount_rate) AS discount_rate,
  pr.is_club_only, pr.is_coupon, pr.min_purchase_amount`;

const marks = (n: number) => Array(n).fill("?").join(",");

/**
 * What basket pricing reads per product — the product row, its chain figures, its promotion
 * items and each promotion's stores — kept for the data version in bounded LRUs. A 100-item
 * basket read ~2,500 chain rows, thousands of promotion rows and the store lists of the
 * promotions from SQLite; shoppers' baskets share most products, so after the first baskets
 * these come from memory. Dropped whenever the data version changes.
 */
export class BasketData {
  private readonly productsBy = new ResultCache<ResolveResult>(200_000);
  private readonly figuresBy = new ResultCache<ChainFigureRow[]>(2_000_000);
  private readonly promotionsBy = new ResultCache<PromotionRow[]>(1_000_000);
  private readonly storesBy = new ResultCache<Int32Array>(5_000_000);

  constructor(private readonly source: Pick<SnapshotSource, "db" | "current">) {}

  private get db(): Database {
    return this.source.db;
  }

  private version(): number {
    return this.source.current.version;
  }

  /** What an item's barcode and chain_id name, as resolveProduct resolves them. */
  product(barcode: string, chainId?: string): ResolveResult {
    const version = this.version();
    const key = `${productKey(barcode)}|${chainId ?? ""}`;
    const hit = this.productsBy.get(version, key, 0);
    if (hit !== undefined) return hit;
    const result = resolveProduct(this.db, { barcode, chain_id: chainId });
    this.productsBy.set(version, key, result, Infinity, 1);
    return result;
  }

  /** chain_products rows of each product. */
  chainFigures(productIds: number[]): Map<number, ChainFigureRow[]> {
    return this.load(this.figuresBy, productIds, (ids) => {
      const rows = this.db
        .query(`SELECT chain_id, product_id, price_mode, store_count FROM chain_products WHERE product_id IN (${marks(ids.length)})`)
        .all(...ids) as ChainFigureRow[];
      return group(ids, rows, (r) => r.product_id);
    });
  }

  /** Non-gift promotion items of each product (all dates). */
  promotions(productIds: number[]): Map<number, PromotionRow[]> {
    return this.load(this.promotionsBy, productIds, (ids) => {
      const rows = this.db
        .query(
          `SELECT ${PROMOTION_COLUMNS} FROM promotion_items pi CROSS JOIN promotions pr ON pr.id = pi.promotion_id JOIN chains c ON c.id = pr.chain_id
            WHERE pi.is_gift = 0 AND pi.product_id IN (${marks(ids.length)})`,
        )
        .all(...ids) as PromotionRow[];
      for (const r of rows) {
        r.startsMs = r.starts_at ? Date.parse(r.starts_at) : NaN;
        r.endsMs = r.ends_at ? Date.parse(r.ends_at) : NaN;
      }
      return group(ids, rows, (r) => r.product_id);
    });
  }

  /** The stores (db ids) linked to each promotion item list (those whose own list it is). */
  promotionStores(listIds: number[]): Map<number, Int32Array> {
    const lists = this.load(this.storesBy, listIds, (ids) => {
      const rows = this.db
        .query(`SELECT list_id, store_id FROM promotion_stores WHERE list_id IN (${marks(ids.length)})`)
        .all(...ids) as { list_id: number; store_id: number }[];
      const grouped = group(ids, rows, (r) => r.list_id);
      return new Map([...grouped].map(([id, list]) => [id, Int32Array.from(list, (r) => r.store_id)]));
    });
    return lists;
  }

  /** Cached values for `ids`, loading the missing ones in batches of 500. */
  private load<V extends { length: number }>(cache: ResultCache<V>, ids: number[], fetch: (ids: number[]) => Map<number, V>): Map<number, V> {
    const version = this.version();
    const out = new Map<number, V>();
    const missing: number[] = [];
    for (const id of new Set(ids)) {
      const hit = cache.get(version, String(id), 0);
      if (hit) out.set(id, hit);
      else missing.push(id);
    }
    for (let i = 0; i < missing.length; i += 500) {
      for (const [id, value] of fetch(missing.slice(i, i + 500))) {
        out.set(id, value);
        cache.set(version, String(id), value, Infinity, value.length + 1);
      }
    }
    return out;
  }
}

function group<R>(ids: number[], rows: R[], keyOf: (row: R) => number): Map<number, R[]> {
  const out = new Map<number, R[]>(ids.map((id) => [id, []]));
  for (const r of rows) out.get(keyOf(r))!.push(r);
  return out;
}

declare module "../../deps.ts" {
  interface AnswerCaches {
    basketData: BasketData;
  }
}

/** The basket data cache of a data set (createServices builds one per data set). */
export function basketData(deps: DataSet): BasketData {
  return deps.answers.basketData;
}
