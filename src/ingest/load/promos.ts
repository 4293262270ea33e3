import type { Database, Statement } from "bun:sqlite";
import type { PromotionItemRecord, PromotionRecord } from "../records.ts";
import { isRestrictedCirculation, isValidGtin, productIdentity, type ProductIdentity } from "./barcode.ts";
import type { ProductCache } from "./products.ts";

export interface PromoOptions {
  /** PromoFull: the store's promotions are exactly the file's (links to others are removed). */
  replace: boolean;
}

export interface PromoResult {
  /** Promotions in the file. */
  rows: number;
  /** Promotions whose row and items were (re)written; the rest were already written this run. */
  written: number;
  /** Promotion items skipped because no price file has published their product. */
  unknownItems: number;
  linked: number;
  unlinked: number;
}

/**
 * Promotion rows of one run, by (chain code, promotion code): the same promotion is listed in
 * the PromoFull of every store it runs in, so an identical one is written once per run.
 */
export class PromotionStatements {
  readonly written = new Map<string, { id: number; hash: number | bigint }>();
  readonly upsert: Statement;
  readonly clearItems: Statement;
  readonly addItem: Statement;
  readonly storeLinks: Statement;
  readonly link: Statement;
  readonly unlink: Statement;
  /** Whether a store has a current price for a product (primary-key lookup). */
  readonly sells: Statement;

  constructor(db: Database) {
    this.upsert = db.prepare(
      `INSERT INTO promotions (chain_id, chain_code, promotion_code, description, starts_at, ends_at, updated_at, reward_type,
                               discount_type, min_qty, max_qty, discounted_price, discount_rate, min_purchase_amount,
                               is_club_only, is_coupon, is_weighted, allow_multiple, gift_count, club_ids, remarks)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (chain_code, promotion_code) DO UPDATE SET
         chain_id = excluded.chain_id, description = excluded.description, starts_at = excluded.starts_at,
         ends_at = excluded.ends_at, updated_at = excluded.updated_at, reward_type = excluded.reward_type,
         discount_type = excluded.discount_type, min_qty = excluded.min_qty, max_qty = excluded.max_qty,
         discounted_price = excluded.discounted_price, discount_rate = excluded.discount_rate,
         min_purchase_amount = excluded.min_purchase_amount, is_club_only = excluded.is_club_only,
         is_coupon = excluded.is_coupon, is_weighted = excluded.is_weighted, allow_multiple = excluded.allow_multiple,
         gift_count = excluded.gift_count, club_ids = excluded.club_ids, remarks = excluded.remarks
       RETURNING id`,
    );
    this.clearItems = db.prepare("DELETE FROM promotion_items WHERE promotion_id = ?");
    this.addItem = db.prepare(
      `INSERT INTO promotion_items (promotion_id, product_id, is_gift, min_qty, max_qty, discounted_price, discount_rate)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (promotion_id, product_id) DO UPDATE SET is_gift = max(is_gift, excluded.is_gift)`,
    );
    this.storeLinks = db.prepare("SELECT promotion_id FROM promotion_stores WHERE store_id = ?");
    this.link = db.prepare("INSERT OR IGNORE INTO promotion_stores (promotion_id, store_id) VALUES (?, ?)");
    this.unlink = db.prepare("DELETE FROM promotion_stores WHERE promotion_id = ? AND store_id = ?");
    this.sells = db.prepare("SELECT 1 FROM price_current WHERE store_id = ? AND product_id = ?");
  }

  /** Forgets what was written (after a rollback). */
  clear(): void {
    this.written.clear();
  }
}

/**
 * A promotion item's product: by its own identity first, then under the other scope — a chain
 * may mark an item ItemType 1 in its price file and 0 in its promotion file, or the reverse.
 * An internal-marked code (ItemType 0) reaches the shared product of its GTIN only when the
 * promotion's store sells that product: otherwise it would be merged with another chain's
 * product (Osher Ad's 2015 promotions mark every barcode ItemType 0).
 */
function findItemProduct(st: PromotionStatements, products: ProductCache, item: PromotionItemRecord, chainId: number, storeId: number): number | null {
  const identity = productIdentity(item.itemCode, item.itemType, chainId);
  const found = products.find(identity);
  if (found !== null) return found;
  if (identity.scope === 0) return products.find({ scope: chainId, key: identity.key });
  if (!isValidGtin(identity.key) || isRestrictedCirculation(identity.key)) return null;
  const shared = products.find({ scope: 0, key: identity.key } satisfies ProductIdentity);
  return shared !== null && st.sells.get(storeId, shared) !== null ? shared : null;
}

/**
 * Loads one store's promotion file: upserts each promotion with its items (items whose product
 * is unknown are skipped and counted) and links it to the store. With `replace` (a complete
 * PromoFull) the store's links to promotions not in the file are removed; promotions left with
 * no store are deleted at the end of the run (see collectOrphanPromotions).
 *
 * @example loadPromos(statements, products, storeId, { chainId: 2, chainCode: "7290058140886" }, promotions, { replace: true })
 * // → { rows: 2206, written: 2206, unknownItems: 31, linked: 2206, unlinked: 0 }
 */
export function loadPromos(
  st: PromotionStatements,
  products: ProductCache,
  storeId: number,
  chain: { chainId: number; chainCode: string },
  promotions: PromotionRecord[],
  options: PromoOptions,
): PromoResult {
  const ids = new Set<number>();
  let written = 0;
  let unknownItems = 0;
  for (const promo of promotions) {
    const key = `${chain.chainCode}:${promo.promotionCode}`;
    const hash = Bun.hash(JSON.stringify(promo));
    const known = st.written.get(key);
    if (known && known.hash === hash) {
      ids.add(known.id);
      continue;
    }
    const { id } = st.upsert.get(
      chain.chainId, chain.chainCode, promo.promotionCode, promo.description, promo.startsAt, promo.endsAt, promo.updatedAt,
      promo.rewardType, promo.discountType, promo.minQty, promo.maxQty, promo.discountedPrice, promo.discountRate,
      promo.minPurchaseAmount, promo.isClubOnly ? 1 : 0, promo.isCoupon ? 1 : 0, promo.isWeighted ? 1 : 0,
      promo.allowMultiple ? 1 : 0, promo.giftCount, JSON.stringify(promo.clubIds), promo.remarks,
    ) as { id: number };
    st.clearItems.run(id);
    for (const item of promo.items) {
      const productId = findItemProduct(st, products, item, chain.chainId, storeId);
      if (productId === null) {
        unknownItems++;
        continue;
      }
      st.addItem.run(id, productId, item.isGift ? 1 : 0, item.minQty, item.maxQty, item.discountedPrice, item.discountRate);
    }
    st.written.set(key, { id, hash });
    ids.add(id);
    written++;
  }

  const linkedBefore = new Set((st.storeLinks.values(storeId) as [number][]).map((r) => r[0]));
  let linked = 0;
  for (const id of [...ids].sort((a, b) => a - b)) {
    if (linkedBefore.has(id)) continue;
    st.link.run(id, storeId);
    linked++;
  }
  let unlinked = 0;
  if (options.replace) {
    for (const id of linkedBefore) {
      if (ids.has(id)) continue;
      st.unlink.run(id, storeId);
      unlinked++;
    }
  }
  return { rows: promotions.length, written, unknownItems, linked, unlinked };
}

/**
 * Deletes promotions no store links to any more (and their items); run once at the end of an
 * import, inside its transaction.
 * @example collectOrphanPromotions(db) // → 12
 */
export function collectOrphanPromotions(db: Database): number {
  const orphan = "NOT EXISTS (SELECT 1 FROM promotion_stores ps WHERE ps.promotion_id = promotions.id)";
  db.run(`DELETE FROM promotion_items WHERE promotion_id IN (SELECT id FROM promotions WHERE ${orphan})`);
  return db.run(`DELETE FROM promotions WHERE ${orphan}`).changes;
}
