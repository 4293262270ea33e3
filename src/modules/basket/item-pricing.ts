import type { DataSet } from "../../deps.ts";
import { publicPromotionId, unitPromotion } from "../../pricing/promotion-row.ts";
import { formatIls } from "../../lib/time.ts";
import { lineTotal, type UnitPromotion } from "../../pricing/rules.ts";
import { suspectReason } from "../../pricing/suspect.ts";
import { GENERIC_SCOPE } from "../../identity/resolve.ts";
import type { ProductRow } from "../../pricing/queries.ts";
import { ResultCache } from "../../serving/result-cache.ts";
import { basketData, type PromotionRow } from "./basket-data.ts";
import { utf8 } from "../../http/prebuilt/json-bytes.ts";

/** One basket line at one chain: its breakdown entry already serialized (UTF-8), and its sums in agorot. */
export interface ChainLine {
  json: Uint8Array;
  total: number;
  shelf: number;
  /** What a club member pays: club-only promotions applied too (coupons and basket minimums never). */
  clubTotal: number;
  /** The shelf price is most likely a data error (src/pricing/suspect.ts). */
  suspect: boolean;
}

/** A basket item (barcode as sent, quantity) priced at every chain that sells it. */
export interface ItemPricing {
  /** chains.id → the line at that chain. */
  byChain: Map<number, ChainLine>;
  /** When a promotion of the product starts or ends: the pricing holds until then. */
  validUntil: number;
}

/** The promotion as the pricing rules take it; made once per cached row. */
// A pure memo of each (immutable) promotion row's mapping: no app state.
const units = new WeakMap<PromotionRow, UnitPromotion>();
export function toUnitPromotion(r: PromotionRow): UnitPromotion {
  let unit = units.get(r);
  if (!unit) {
    unit = unitPromotion(r, publicPromotionId(r.chain_slug, r.promotion_code));
    units.set(r, unit);
  }
  return unit;
}

/** What a line says of its product beside the price: how loose produce is sold. */
export function soldBy(product: Pick<ProductRow, "scope_chain_id" | "is_weighted">): "kg" | "unit" | null {
  return product.scope_chain_id === GENERIC_SCOPE ? (product.is_weighted === 1 ? "kg" : "unit") : null;
}

/** `{"barcode":…,"name":…,"quantity":…,"unit_price_ils":…,"line_total_ils":…,"promotion_id":…,"suspect":…}` (+ `"sold_by"` for loose produce) */
function lineJson(barcode: string, product: ProductRow, quantity: number, unit: number, total: number, promotionId: string | null, suspect: boolean): Uint8Array {
  const by = soldBy(product);
  return utf8(
    `{"barcode":${JSON.stringify(barcode)},"name":${JSON.stringify(product.name)},"quantity":${quantity},"unit_price_ils":"${formatIls(unit)}","line_total_ils":"${formatIls(total)}",` +
      `"promotion_id":${promotionId === null ? "null" : JSON.stringify(promotionId)},"suspect":${suspect}${by === null ? "" : `,"sold_by":"${by}"`}}`,
  );
}

/**
 * Chain-wide pricing of one item: at each chain the chain price (chain_products.price_mode)
 * with the chain's promotions active now that run in at least half of its stores carrying the
 * product, for this quantity (multi-buy groups, maximum quantity). Baskets repeat the same popular
 * items, so each (barcode, quantity) is priced once per data version and kept until one of the
 * product's promotions starts or ends.
 *
 * @example itemPricing(deps, "7290000066318", 2, product).byChain.get(shufersalId)?.total // 1380
 */
export function itemPricing(deps: DataSet, barcode: string, quantity: number, product: ProductRow): ItemPricing {
  const cache = cacheOf(deps);
  const version = deps.data.current.version;
  const now = deps.now().getTime();
  const key = `${product.id}|${barcode}|${quantity}`;
  const hit = cache.get(version, key, now);
  if (hit) return hit;

  const data = basketData(deps);
  const figures = data.chainFigures([product.id]).get(product.id) ?? [];
  const all = data.promotions([product.id]).get(product.id) ?? [];
  let validUntil = Infinity;
  const active: PromotionRow[] = [];
  for (const p of all) {
    if (p.startsMs > now && p.startsMs < validUntil) validUntil = p.startsMs;
    if (p.endsMs > now && p.endsMs < validUntil) validUntil = p.endsMs;
    // Same rule as isActive: started (or no start), not yet ended (or no end).
    if (!(p.startsMs > now) && !(p.endsMs <= now)) active.push(p);
  }
  const storesOf = data.promotionStores(active.map((p) => p.list_id));
  // A promotion's stores for this product: those of every item list of it that names the product.
  const reach = new Map<number, number>();
  for (const p of active) reach.set(p.promotion_db_id, (reach.get(p.promotion_db_id) ?? 0) + storesOf.get(p.list_id)!.length);
  const byChain = new Map<number, ChainLine>();
  const reference = new Map(figures.map((f) => [f.chain_id, f.price_mode]));
  for (const figure of figures) {
    const applicable: UnitPromotion[] = [];
    const taken = new Set<number>();
    for (const p of active) {
      if (p.chain_id !== figure.chain_id || taken.has(p.promotion_db_id) || reach.get(p.promotion_db_id)! * 2 < figure.store_count) continue;
      taken.add(p.promotion_db_id);
      applicable.push(toUnitPromotion(p));
    }
    const { total, promotionId } = lineTotal(figure.price_mode, quantity, applicable);
    const suspect = suspectReason(figure.price_mode, figure.chain_id, reference) !== null;
    byChain.set(figure.chain_id, {
      json: lineJson(barcode, product, quantity, figure.price_mode, total, promotionId, suspect),
      total,
      shelf: figure.price_mode * quantity,
      clubTotal: lineTotal(figure.price_mode, quantity, applicable, true).total,
      suspect,
    });
  }
  const pricing: ItemPricing = { byChain, validUntil };
  cache.set(version, key, pricing, validUntil, byChain.size + 1);
  return pricing;
}

/**
 * A line priced at one store (city baskets), serialized; `suspect` judged against the chains' prices of the product.
 * @example storeLine("7290000066318", product, 2, 690, [], false).total // 1380
 */
export function storeLine(barcode: string, product: ProductRow, quantity: number, shelf: number, promotions: UnitPromotion[], suspect: boolean): ChainLine {
  const { total, promotionId } = lineTotal(shelf, quantity, promotions);
  return {
    json: lineJson(barcode, product, quantity, shelf, total, promotionId, suspect),
    total,
    shelf: shelf * quantity,
    clubTotal: lineTotal(shelf, quantity, promotions, true).total,
    suspect,
  };
}

// Weight = chain lines held (~200 bytes each).
const MAX_LINES = 300_000;

declare module "../../deps.ts" {
  interface AnswerCaches {
    basketItems: ResultCache<ItemPricing>;
  }
}

/** A data set's item pricings (createServices builds one per data set). */
export function itemPricings(): ResultCache<ItemPricing> {
  return new ResultCache<ItemPricing>(MAX_LINES);
}

function cacheOf(deps: DataSet): ResultCache<ItemPricing> {
  return deps.answers.basketItems;
}
