import type { DataSet } from "../../deps.ts";
import { lineTotal, type UnitPromotion } from "../../pricing/rules.ts";
import type { ProductRow } from "../../pricing/queries.ts";
import { basketData, type PromotionRow } from "./basket-data.ts";
import { toUnitPromotion } from "./item-pricing.ts";
import { suspectReason } from "../../pricing/suspect.ts";

/** A basket item resolved to its product (null: unknown), with its merged quantity. */
export interface BasketItem {
  barcode: string;
  quantity: number;
  product: ProductRow | null;
}

/** A store a city, `near` or plan basket prices. */
export interface CandidateStore {
  id: number;
  chain_id: number;
  store_code: string;
  name: string | null;
  city: string | null;
  region: string | null;
  /** Kilometres from the `near` point, when the basket has one. */
  distance?: number;
}

/** One item at one store: its shelf price, the promotions open there, and the line's total (rules.ts lineTotal). */
export interface StoreCell {
  shelf: number;
  promotions: UnitPromotion[];
  total: number;
  /** The shelf price is most likely a data error (src/pricing/suspect.ts), judged against the chains' prices of the product. */
  suspect: boolean;
}

/** A store's pricing of a basket: a cell per item (undefined where the store does not sell it). */
export interface StorePricing {
  store: CandidateStore;
  cells: (StoreCell | undefined)[];
  found: number;
  /** Sum of the found items' line totals (agorot). */
  sum: number;
}

const marks = (n: number) => Array(n).fill("?").join(",");

/** The active promotions (now) among the products' promotion items. */
function activeItemPromotions(deps: DataSet, productIds: number[]): PromotionRow[] {
  const now = deps.now().getTime();
  const out: PromotionRow[] = [];
  for (const rows of basketData(deps).promotions(productIds).values()) {
    // Same rule as isActive: started (or no start), not yet ended (or no end).
    for (const p of rows) if (!(p.startsMs > now) && !(p.endsMs <= now)) out.push(p);
  }
  return out;
}

/**
 * Every store priced exactly, item by item: the store's shelf price (price_current) and the
 * promotions of the store's own item lists, open to all customers, multi-buy where the quantity
 * qualifies (lineTotal) — the basket's per-item rules at one store. Stores selling none of the
 * items are left out.
 */
export function priceEachStore(deps: DataSet, items: BasketItem[], stores: CandidateStore[]): StorePricing[] {
  const found = items.filter((i) => i.product);
  if (stores.length === 0 || found.length === 0) return [];
  const storeIds = stores.map((s) => s.id);
  const ids = found.map((i) => i.product!.id);
  // Literal IN lists: SQLite probes the primary key per (store, product) pair (a json_each subquery scanned every row of each store).
  const prices = deps.db.prices
    .query(`SELECT store_id, product_id, price FROM price_current WHERE store_id IN (${marks(storeIds.length)}) AND product_id IN (${marks(ids.length)})`)
    .all(...storeIds, ...ids) as { store_id: number; product_id: number; price: number }[];
  // Numeric (store, product) keys: store ids stay far below 2^26 and product ids below 2^26.
  const pair = (store: number, product: number) => store * 67_108_864 + product;
  const priceOf = new Map(prices.map((p) => [pair(p.store_id, p.product_id), p.price]));
  // Each promotion's stores intersected with the candidates once (store lists cached per data version).
  const candidate = new Set(storeIds);
  const promotions = activeItemPromotions(deps, ids);
  const storesOf = basketData(deps).promotionStores(promotions.map((p) => p.list_id));
  const candidatesOf = new Map<number, number[]>();
  const promosOf = new Map<number, UnitPromotion[]>();
  for (const p of promotions) {
    let here = candidatesOf.get(p.list_id);
    if (!here) {
      here = [];
      for (const storeId of storesOf.get(p.list_id)!) if (candidate.has(storeId)) here.push(storeId);
      candidatesOf.set(p.list_id, here);
    }
    if (here.length === 0) continue;
    const unit = toUnitPromotion(p);
    for (const storeId of here) {
      const k = pair(storeId, p.product_id);
      const list = promosOf.get(k);
      if (list) list.push(unit);
      else promosOf.set(k, [unit]);
    }
  }
  // Each product's chain prices: what a store's price is judged against (src/pricing/suspect.ts).
  const figures = basketData(deps).chainFigures(ids);
  const reference = new Map(ids.map((id) => [id, new Map((figures.get(id) ?? []).map((f) => [f.chain_id, f.price_mode]))]));
  const out: StorePricing[] = [];
  for (const store of stores) {
    let count = 0;
    let sum = 0;
    const cells = items.map((item): StoreCell | undefined => {
      if (!item.product) return undefined;
      const k = pair(store.id, item.product.id);
      const shelf = priceOf.get(k);
      if (shelf === undefined) return undefined;
      const promotions = promosOf.get(k) ?? [];
      const total = lineTotal(shelf, item.quantity, promotions).total;
      count++;
      sum += total;
      return { shelf, promotions, total, suspect: suspectReason(shelf, store.chain_id, reference.get(item.product.id)!) !== null };
    });
    if (count > 0) out.push({ store, cells, found: count, sum });
  }
  return out;
}
