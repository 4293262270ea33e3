import type { AppDeps } from "../../app.ts";
import { invalidParameter } from "../../http/problem.ts";
import { formatIls } from "../../time.ts";
import { cityFilterName } from "../../geo.ts";
import { lineTotal, type UnitPromotion } from "../prices/pricing.ts";
import { barcodeKey, publicPromotionId, type ProductRow } from "../prices/queries.ts";
import { basketData, type PromotionRow } from "./basket-data.ts";
import type { BasketBody } from "./model.ts";

interface BasketItem {
  barcode: string;
  quantity: number;
  product: ProductRow | null;
}

interface Line {
  barcode: string;
  name: string;
  quantity: number;
  unit: number;
  total: number;
  shelf: number;
  promotionId: string | null;
}

interface Priced {
  chainDbId: number;
  lines: Line[];
  missing: string[];
  store?: { store_id: string; branch_name: string; city: string | null; region: string | null };
}

/** Repeated barcodes (leading zeros aside) become one line with the summed quantity. */
function mergeItems(deps: AppDeps, body: BasketBody): BasketItem[] {
  const byKey = new Map<string, BasketItem>();
  for (const item of body.items) {
    const key = barcodeKey(item.barcode);
    const existing = byKey.get(key);
    if (existing) existing.quantity += item.quantity;
    else byKey.set(key, { barcode: item.barcode, quantity: item.quantity, product: null });
  }
  const data = basketData(deps);
  for (const item of byKey.values()) item.product = data.product(item.barcode);
  return [...byKey.values()];
}

/** The active promotions (now) among the products' promotion items. */
function activeItemPromotions(deps: AppDeps, productIds: number[]): PromotionRow[] {
  const now = deps.now().getTime();
  const out: PromotionRow[] = [];
  for (const rows of basketData(deps).promotions(productIds).values()) {
    // Same rule as isActive: started (or no start), not yet ended (or no end).
    for (const p of rows) if (!(p.startsMs > now) && !(p.endsMs <= now)) out.push(p);
  }
  return out;
}

/** The promotion as the pricing rules take it; made once per cached row. */
const units = new WeakMap<PromotionRow, UnitPromotion>();
function toUnitPromotion(r: PromotionRow): UnitPromotion {
  let unit = units.get(r);
  if (!unit) units.set(r, (unit = makeUnitPromotion(r)));
  return unit;
}

function makeUnitPromotion(r: PromotionRow): UnitPromotion {
  return {
    promotionId: publicPromotionId(r.chain_slug, r.promotion_code),
    minQty: r.min_qty,
    maxQty: r.max_qty,
    discountedPrice: r.discounted_price,
    discountRate: r.discount_rate,
    isClubOnly: r.is_club_only === 1,
    isCoupon: r.is_coupon === 1,
    minPurchaseAmount: r.min_purchase_amount,
  };
}

function priceLine(item: BasketItem, shelf: number, promotions: UnitPromotion[]): Line {
  const { total, promotionId } = lineTotal(shelf, item.quantity, promotions);
  return { barcode: item.barcode, name: item.product!.name, quantity: item.quantity, unit: shelf, total, shelf: shelf * item.quantity, promotionId };
}

/**
 * Chain-wide pricing: each item at the chain price (chain_products.price_mode) with the
 * chain's active promotions that run in at least half of the chain's stores carrying the item.
 */
function priceByChain(deps: AppDeps, items: BasketItem[], chainFilter: Set<number> | null): Priced[] {
  const found = items.filter((i) => i.product);
  if (found.length === 0) return [];
  const ids = found.map((i) => i.product!.id);
  const chainRows = [...basketData(deps).chainFigures(ids).values()].flat();
  const promotions = activeItemPromotions(deps, ids);
  // Numeric (chain, product) keys: chain ids stay far below 2^26.
  const promoKey = (chain: number, product: number) => product * 67_108_864 + chain;
  const promosBy = new Map<number, PromotionRow[]>();
  for (const p of promotions) {
    const k = promoKey(p.chain_id, p.product_id);
    const list = promosBy.get(k);
    if (list) list.push(p);
    else promosBy.set(k, [p]);
  }
  const storesOf = basketData(deps).promotionStores(promotions.map((p) => p.promotion_db_id));
  const byChain = new Map<number, Map<number, { price: number; stores: number }>>();
  for (const r of chainRows) {
    if (chainFilter && !chainFilter.has(r.chain_id)) continue;
    if (!byChain.has(r.chain_id)) byChain.set(r.chain_id, new Map());
    byChain.get(r.chain_id)!.set(r.product_id, { price: r.price_mode, stores: r.store_count });
  }
  const out: Priced[] = [];
  for (const [chainDbId, products] of byChain) {
    const lines: Line[] = [];
    const missing: string[] = [];
    for (const item of items) {
      const figure = item.product ? products.get(item.product.id) : undefined;
      if (!figure) {
        missing.push(item.barcode);
        continue;
      }
      const applicable = (promosBy.get(promoKey(chainDbId, item.product!.id)) ?? [])
        .filter((p) => storesOf.get(p.promotion_db_id)!.length * 2 >= figure.stores)
        .map(toUnitPromotion);
      lines.push(priceLine(item, figure.price, applicable));
    }
    out.push({ chainDbId, lines, missing });
  }
  return out;
}

/** City pricing: every store of the city priced exactly; per chain the store with most items, then lowest total. */
function priceByCityStore(deps: AppDeps, items: BasketItem[], city: string, chainFilter: Set<number> | null): Priced[] {
  const stores = deps.db.prices
    .query(`SELECT id, chain_id, store_code, name, city, region FROM stores WHERE city = ?`)
    .all(city) as { id: number; chain_id: number; store_code: string; name: string | null; city: string | null; region: string | null }[];
  const inScope = stores.filter((s) => !chainFilter || chainFilter.has(s.chain_id));
  const found = items.filter((i) => i.product);
  if (inScope.length === 0 || found.length === 0) return [];
  const storeIds = inScope.map((s) => s.id);
  const ids = found.map((i) => i.product!.id);
  const storeMarks = storeIds.map(() => "?").join(",");
  const idMarks = ids.map(() => "?").join(",");
  const prices = deps.db.prices
    .query(`SELECT store_id, product_id, price FROM price_current WHERE store_id IN (${storeMarks}) AND product_id IN (${idMarks})`)
    .all(...storeIds, ...ids) as { store_id: number; product_id: number; price: number }[];
  // Numeric (store, product) keys: store ids stay far below 2^26 and product ids below 2^26.
  const pair = (store: number, product: number) => store * 67_108_864 + product;
  const priceOf = new Map(prices.map((p) => [pair(p.store_id, p.product_id), p.price]));
  // Each promotion's stores intersected with the city's once (store lists cached per data version).
  const inCity = new Set(storeIds);
  const promotions = activeItemPromotions(deps, ids);
  const storesOf = basketData(deps).promotionStores(promotions.map((p) => p.promotion_db_id));
  const cityStoresOf = new Map<number, number[]>();
  const promosOf = new Map<number, UnitPromotion[]>();
  for (const p of promotions) {
    let here = cityStoresOf.get(p.promotion_db_id);
    if (!here) {
      here = [];
      for (const storeId of storesOf.get(p.promotion_db_id)!) if (inCity.has(storeId)) here.push(storeId);
      cityStoresOf.set(p.promotion_db_id, here);
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
  const best = new Map<number, Priced & { sum: number }>();
  for (const store of inScope) {
    const lines: Line[] = [];
    const missing: string[] = [];
    for (const item of items) {
      const shelf = item.product ? priceOf.get(pair(store.id, item.product.id)) : undefined;
      if (shelf === undefined) missing.push(item.barcode);
      else lines.push(priceLine(item, shelf, promosOf.get(pair(store.id, item.product!.id)) ?? []));
    }
    if (lines.length === 0) continue;
    const sum = lines.reduce((a, l) => a + l.total, 0);
    const current = best.get(store.chain_id);
    if (!current || lines.length > current.lines.length || (lines.length === current.lines.length && sum < current.sum)) {
      best.set(store.chain_id, {
        chainDbId: store.chain_id,
        lines,
        missing,
        sum,
        store: { store_id: store.store_code, branch_name: store.name ?? "", city: store.city || null, region: store.region || null },
      });
    }
  }
  return [...best.values()];
}

/**
 * POST /api/v1/basket/compare/: the basket's total per chain (or per chain's cheapest store in
 * a city), promotions open to all customers applied, ranked: most items found, then lowest total.
 */
export function compareBasket(deps: AppDeps, body: BasketBody) {
  const chainRows = deps.db.prices.query("SELECT id, slug, name FROM chains").all() as { id: number; slug: string; name: string }[];
  const bySlug = new Map(chainRows.map((c) => [c.slug, c]));
  const byId = new Map(chainRows.map((c) => [c.id, c]));
  let chainFilter: Set<number> | null = null;
  if (body.chain_ids) {
    chainFilter = new Set();
    body.chain_ids.forEach((slug, i) => {
      const chain = bySlug.get(slug);
      if (!chain) throw invalidParameter(`chain_ids[${i}]`, `Unknown chain ${slug}; GET /api/v1/chains/ lists them.`);
      chainFilter!.add(chain.id);
    });
  }
  const items = mergeItems(deps, body);
  // A city in any spelling resolveCity knows (`תל אביב`, `ת"א`, a CBS code) means its stores.
  const priced = body.city ? priceByCityStore(deps, items, cityFilterName(body.city), chainFilter) : priceByChain(deps, items, chainFilter);
  const stores = priced
    .map((p) => {
      const total = p.lines.reduce((a, l) => a + l.total, 0);
      const shelf = p.lines.reduce((a, l) => a + l.shelf, 0);
      const chain = byId.get(p.chainDbId)!;
      return {
        sortTotal: total,
        entry: {
          chain_id: chain.slug,
          chain_name: chain.name,
          total_ils: formatIls(total),
          shelf_total_ils: formatIls(shelf),
          items_found: p.lines.length,
          items_total: items.length,
          items: p.lines.map((l) => ({
            barcode: l.barcode,
            name: l.name,
            quantity: l.quantity,
            unit_price_ils: formatIls(l.unit),
            line_total_ils: formatIls(l.total),
            promotion_id: l.promotionId,
          })),
          missing_items: p.missing,
          ...(p.store ? { store: p.store } : {}),
        },
      };
    })
    .sort(
      (a, b) =>
        b.entry.items_found - a.entry.items_found ||
        a.sortTotal - b.sortTotal ||
        a.entry.chain_name.localeCompare(b.entry.chain_name, "he") ||
        a.entry.chain_id.localeCompare(b.entry.chain_id),
    )
    .map((s) => s.entry);
  return {
    cheapest_store: stores[0]?.chain_id ?? null,
    stores,
    missing_items: items.filter((i) => !i.product).map((i) => i.barcode),
  };
}
