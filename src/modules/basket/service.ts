import type { AppDeps } from "../../app.ts";
import { invalidParameter } from "../../http/problem.ts";
import { formatIls } from "../../time.ts";
import { lineTotal, type UnitPromotion } from "../prices/pricing.ts";
import { barcodeKey, findProduct, isActive, publicPromotionId, type ProductRow } from "../prices/queries.ts";
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
  store?: { store_id: string; branch_name: string; city: string; region: string };
}

interface PromotionRow {
  product_id: number;
  chain_id: number;
  store_id?: number;
  chain_slug: string;
  promotion_code: string;
  starts_at: string | null;
  ends_at: string | null;
  min_qty: number | null;
  max_qty: number | null;
  discounted_price: number | null;
  discount_rate: number | null;
  is_club_only: number;
  is_coupon: number;
  min_purchase_amount: number | null;
  promo_stores: number;
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
  for (const item of byKey.values()) item.product = findProduct(deps.db.prices, item.barcode);
  return [...byKey.values()];
}

const PROMOTION_COLUMNS = `pi.product_id, pr.chain_id, c.slug AS chain_slug, pr.promotion_code, pr.starts_at, pr.ends_at,
  coalesce(pi.min_qty, pr.min_qty) AS min_qty, coalesce(pi.max_qty, pr.max_qty) AS max_qty,
  coalesce(pi.discounted_price, pr.discounted_price) AS discounted_price, coalesce(pi.discount_rate, pr.discount_rate) AS discount_rate,
  pr.is_club_only, pr.is_coupon, pr.min_purchase_amount,
  (SELECT count(*) FROM promotion_stores ps2 WHERE ps2.promotion_id = pr.id) AS promo_stores`;

function toUnitPromotion(r: PromotionRow): UnitPromotion {
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
  const marks = ids.map(() => "?").join(",");
  const chainRows = deps.db.prices
    .query(`SELECT chain_id, product_id, price_mode, store_count FROM chain_products WHERE product_id IN (${marks})`)
    .all(...ids) as { chain_id: number; product_id: number; price_mode: number; store_count: number }[];
  const promotions = deps.db.prices
    .query(
      `SELECT ${PROMOTION_COLUMNS} FROM promotion_items pi JOIN promotions pr ON pr.id = pi.promotion_id JOIN chains c ON c.id = pr.chain_id
        WHERE pi.is_gift = 0 AND pi.product_id IN (${marks})`,
    )
    .all(...ids) as PromotionRow[];
  const now = deps.now().getTime();
  const promoKey = (chain: number, product: number) => `${chain}:${product}`;
  const promosBy = new Map<string, PromotionRow[]>();
  for (const p of promotions) {
    if (!isActive(p.starts_at, p.ends_at, now)) continue;
    const k = promoKey(p.chain_id, p.product_id);
    promosBy.set(k, [...(promosBy.get(k) ?? []), p]);
  }
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
        .filter((p) => p.promo_stores * 2 >= figure.stores)
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
  const promotions = deps.db.prices
    .query(
      `SELECT ps.store_id, ${PROMOTION_COLUMNS}
         FROM promotion_items pi JOIN promotions pr ON pr.id = pi.promotion_id JOIN chains c ON c.id = pr.chain_id
         JOIN promotion_stores ps ON ps.promotion_id = pr.id
        WHERE pi.is_gift = 0 AND ps.store_id IN (${storeMarks}) AND pi.product_id IN (${idMarks})`,
    )
    .all(...storeIds, ...ids) as PromotionRow[];
  const now = deps.now().getTime();
  const priceOf = new Map(prices.map((p) => [`${p.store_id}:${p.product_id}`, p.price]));
  const promosOf = new Map<string, UnitPromotion[]>();
  for (const p of promotions) {
    if (!isActive(p.starts_at, p.ends_at, now)) continue;
    const k = `${p.store_id}:${p.product_id}`;
    promosOf.set(k, [...(promosOf.get(k) ?? []), toUnitPromotion(p)]);
  }
  const best = new Map<number, Priced & { sum: number }>();
  for (const store of inScope) {
    const lines: Line[] = [];
    const missing: string[] = [];
    for (const item of items) {
      const shelf = item.product ? priceOf.get(`${store.id}:${item.product.id}`) : undefined;
      if (shelf === undefined) missing.push(item.barcode);
      else lines.push(priceLine(item, shelf, promosOf.get(`${store.id}:${item.product!.id}`) ?? []));
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
        store: { store_id: store.store_code, branch_name: store.name ?? "", city: store.city ?? "", region: store.region ?? "" },
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
  const priced = body.city ? priceByCityStore(deps, items, body.city, chainFilter) : priceByChain(deps, items, chainFilter);
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
