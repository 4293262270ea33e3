import type { Database, Statement } from "bun:sqlite";
import type { PromotionItemRecord, PromotionRecord } from "../records.ts";
import { isRestrictedCirculation, isValidGtin, productIdentity, type ProductIdentity } from "./barcode.ts";
import type { ProductCache } from "./products.ts";
import { promotionIdentity } from "./promotion-identity.ts";

export interface PromoOptions {
  /** PromoFull: the store's promotions are exactly the file's (links to others are removed). */
  replace: boolean;
}

export interface PromoResult {
  /** Promotions in the file. */
  rows: number;
  /** Promotions whose row was (re)written; the rest were already written this run. */
  written: number;
  /** Items (bought) and gift items the file lists. */
  items: number;
  gifts: number;
  /** Items whose product no price file has published yet: kept by code, linked when one does. */
  unknownItems: number;
  /** Item lists first seen this run (a store whose list differs from the others' gets its own). */
  newLists: number;
  /** Promotions left out because a start or end date could not be read. */
  unreadableDates: number;
  linked: number;
  unlinked: number;
}

/** A promotion left out for its dates, with the raw values (for the run's report). */
export interface UnreadablePromotion {
  promotionCode: string;
  values: string[];
}

/**
 * Promotion rows of one run. A promotion is one row per (chain, promotion id, identity) — whatever
 * code of the chain its file was published under; identity is what the file says of it (see
 * promotionIdentity: chains reuse ids) — and each distinct item list of it is a list (list_id)
 * that the stores listing it link to. The same promotion is listed in the PromoFull of every store it
 * runs in, so identical rows and lists are written once per run.
 */
export class PromotionStatements {
  /** (chain id:promotion code:identity) → row id and hash of the promotion's own fields. */
  readonly written = new Map<string, { id: number; hash: string }>();
  /** (row id:items hash) → list id. */
  readonly lists = new Map<string, number>();
  /** Items of each list seen this run still awaiting their product. */
  readonly pending = new Map<number, number>();
  /** Item lists that lost a store link this run: checked for orphans at finish. */
  readonly released = new Set<number>();
  /** The last list id handed out (read once per run). */
  private lastList: number | null = null;
  readonly upsert: Statement;
  readonly findList: Statement;
  readonly countPending: Statement;
  readonly maxList: Statement;
  readonly addList: Statement;
  readonly addItem: Statement;
  readonly storeLinks: Statement;
  readonly link: Statement;
  readonly unlink: Statement;
  /** Whether a store has a current price for a product (primary-key lookup). */
  readonly sells: Statement;

  constructor(db: Database) {
    this.upsert = db.prepare(
      `INSERT INTO promotions (chain_id, chain_code, promotion_code, identity, description, starts_at, ends_at, updated_at, reward_type,
                               discount_type, min_qty, max_qty, discounted_price, discount_rate, min_purchase_amount,
                               is_club_only, is_coupon, is_weighted, allow_multiple, gift_count, club_ids, remarks)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (chain_id, promotion_code, identity) DO UPDATE SET
         description = excluded.description, starts_at = excluded.starts_at,
         ends_at = excluded.ends_at, updated_at = excluded.updated_at, reward_type = excluded.reward_type,
         discount_type = excluded.discount_type, min_qty = excluded.min_qty, max_qty = excluded.max_qty,
         discounted_price = excluded.discounted_price, discount_rate = excluded.discount_rate,
         min_purchase_amount = excluded.min_purchase_amount, is_club_only = excluded.is_club_only,
         is_coupon = excluded.is_coupon, is_weighted = excluded.is_weighted, allow_multiple = excluded.allow_multiple,
         gift_count = excluded.gift_count, club_ids = excluded.club_ids, remarks = excluded.remarks
       RETURNING id`,
    );
    this.findList = db.prepare("SELECT list_id FROM promotion_lists WHERE promotion_id = ? AND items_hash = ?");
    this.countPending = db.prepare("SELECT count(*) AS n FROM promotion_items WHERE list_id = ? AND product_id IS NULL");
    this.maxList = db.prepare(
      "SELECT max(coalesce((SELECT max(list_id) FROM promotion_lists), 0), coalesce((SELECT max(list_id) FROM promotion_stores), 0)) AS n",
    );
    this.addList = db.prepare("INSERT INTO promotion_lists (list_id, promotion_id, items_hash) VALUES (?, ?, ?)");
    this.addItem = db.prepare(
      `INSERT INTO promotion_items (promotion_id, list_id, item_key, is_gift, item_scope, gtin_like, product_id, min_qty, max_qty, discounted_price, discount_rate)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT DO NOTHING`,
    );
    this.storeLinks = db.prepare(
      "SELECT ps.promotion_id, ps.list_id, pr.promotion_code FROM promotion_stores ps JOIN promotions pr ON pr.id = ps.promotion_id WHERE ps.store_id = ?",
    );
    this.link = db.prepare(
      `INSERT INTO promotion_stores (promotion_id, store_id, list_id) VALUES (?, ?, ?)
       ON CONFLICT (promotion_id, store_id) DO UPDATE SET list_id = excluded.list_id`,
    );
    this.unlink = db.prepare("DELETE FROM promotion_stores WHERE promotion_id = ? AND store_id = ?");
    this.sells = db.prepare("SELECT 1 FROM price_current WHERE store_id = ? AND product_id = ?");
  }

  /** A new list id (unique across promotions). */
  nextList(): number {
    this.lastList ??= (this.maxList.get() as { n: number }).n;
    return ++this.lastList;
  }

  /** Forgets what was written (after a rollback); released lists are still checked at finish. */
  clear(): void {
    this.written.clear();
    this.lists.clear();
    this.pending.clear();
    this.lastList = null;
  }
}

/**
 * A promotion item's product: by its own identity first, then under the other scope — a chain
 * may mark an item ItemType 1 in its price file and 0 in its promotion file, or the reverse.
 * An internal-marked code (ItemType 0) reaches the shared product of its GTIN only when the
 * promotion's store sells that product: otherwise it would be merged with another chain's
 * product (Osher Ad's 2015 promotions mark every barcode ItemType 0). The same rules link
 * pending items at the end of a run (see linkPendingItems).
 */
function findItemProduct(st: PromotionStatements, products: ProductCache, identity: ProductIdentity, gtinLike: boolean, chainId: number, storeId: number): number | null {
  const found = products.find(identity);
  if (found !== null) return found;
  if (identity.scope === 0) return products.find({ scope: chainId, key: identity.key });
  if (!gtinLike) return null;
  const shared = products.find({ scope: 0, key: identity.key } satisfies ProductIdentity);
  return shared !== null && st.sells.get(storeId, shared) !== null ? shared : null;
}

const hashOf = (value: unknown) => String(Bun.hash(JSON.stringify(value)));

/** The promotion's own fields (its item list is hashed apart: stores may list different items). */
function ownFields(promo: PromotionRecord): Omit<PromotionRecord, "items"> {
  const { items: _items, ...own } = promo;
  return own;
}

function writeItems(
  st: PromotionStatements,
  products: ProductCache,
  id: number,
  list: number,
  items: PromotionItemRecord[],
  chainId: number,
  storeId: number,
): number {
  let unknown = 0;
  for (const item of items) {
    const identity = productIdentity(item.itemCode, item.itemType, chainId);
    // `0000000000000` marks a basket-level reward group, not an item (the parsers drop it too).
    if (identity.key === "0") continue;
    const gtinLike = identity.scope !== 0 && isValidGtin(identity.key) && !isRestrictedCirculation(identity.key);
    const productId = findItemProduct(st, products, identity, gtinLike, chainId, storeId);
    if (productId === null) unknown++;
    st.addItem.run(
      id, list, identity.key, item.isGift ? 1 : 0, identity.scope, gtinLike ? 1 : 0, productId,
      item.minQty, item.maxQty, item.discountedPrice, item.discountRate,
    );
  }
  return unknown;
}

/**
 * Loads one store's promotion file: upserts each promotion (one row per chain and promotion
 * id), keeps the store's own item list as one of its lists (stores listing the same items share
 * one), and links the store to it. Items whose product is unknown are kept by code and linked
 * when a price file publishes the product (linkPendingItems). A promotion whose start or end
 * date cannot be read is left out (never served as active) and returned with its raw values.
 * With `replace` (a complete PromoFull) the store's links to promotions not in the file are
 * removed; lists and promotions left with no store are deleted at the end of the run
 * (collectOrphanPromotions).
 *
 * @example loadPromos(statements, products, storeId, { chainId: 2 }, promotions, { replace: true })
 * // → { result: { rows: 2206, written: 2206, items: 9120, gifts: 3, unknownItems: 31, newLists: 2206, unreadableDates: 0, linked: 2206, unlinked: 0 }, unreadable: [] }
 */
export function loadPromos(
  st: PromotionStatements,
  products: ProductCache,
  storeId: number,
  chain: { chainId: number; chainCode: string },
  promotions: PromotionRecord[],
  options: PromoOptions,
): { result: PromoResult; unreadable: UnreadablePromotion[] } {
  const links = new Map<number, number>();
  const codes = new Set<string>();
  const unreadable: UnreadablePromotion[] = [];
  let written = 0;
  let items = 0;
  let gifts = 0;
  let unknownItems = 0;
  let newLists = 0;
  for (const promo of promotions) {
    if (promo.unreadableDates?.length) {
      unreadable.push({ promotionCode: promo.promotionCode, values: promo.unreadableDates });
      continue;
    }
    for (const item of promo.items) item.isGift ? gifts++ : items++;
    const identity = promotionIdentity(promo);
    const key = `${chain.chainId}:${promo.promotionCode}:${identity}`;
    const own = ownFields(promo);
    const hash = hashOf(own);
    let known = st.written.get(key);
    if (!known || known.hash !== hash) {
      const { id } = st.upsert.get(
        chain.chainId, chain.chainCode, promo.promotionCode, identity, promo.description, promo.startsAt, promo.endsAt, promo.updatedAt,
        promo.rewardType, promo.discountType, promo.minQty, promo.maxQty, promo.discountedPrice, promo.discountRate,
        promo.minPurchaseAmount, promo.isClubOnly ? 1 : 0, promo.isCoupon ? 1 : 0, promo.isWeighted ? 1 : 0,
        promo.allowMultiple ? 1 : 0, promo.giftCount, JSON.stringify(promo.clubIds), promo.remarks,
      ) as { id: number };
      st.written.set(key, (known = { id, hash }));
      written++;
    }
    const id = known.id;
    const itemsHash = hashOf(promo.items);
    const listKey = `${id}:${itemsHash}`;
    let list = st.lists.get(listKey);
    if (list === undefined) {
      list = (st.findList.get(id, itemsHash) as { list_id: number } | null)?.list_id;
      if (list === undefined) {
        list = st.nextList();
        st.addList.run(list, id, itemsHash);
        st.pending.set(list, writeItems(st, products, id, list, promo.items, chain.chainId, storeId));
        newLists++;
      } else {
        st.pending.set(list, (st.countPending.get(list) as { n: number }).n);
      }
      st.lists.set(listKey, list);
    }
    unknownItems += st.pending.get(list) ?? 0;
    links.set(id, list);
    codes.add(promo.promotionCode);
  }

  const linkedBefore = st.storeLinks.values(storeId) as [number, number, string][];
  const before = new Map(linkedBefore.map(([id, list]) => [id, list]));
  let linked = 0;
  for (const id of [...links.keys()].sort((a, b) => a - b)) {
    const list = links.get(id)!;
    const previous = before.get(id);
    if (previous === list) continue;
    if (previous !== undefined) st.released.add(previous);
    st.link.run(id, storeId, list);
    linked++;
  }
  // A store runs one promotion under an id at a time: a file describing the id anew (a reused id,
  // or a changed description or start) replaces the store's link to the one described before.
  let unlinked = 0;
  for (const [id, list, code] of linkedBefore) {
    if (links.has(id) || !(options.replace || codes.has(code))) continue;
    st.unlink.run(id, storeId);
    st.released.add(list);
    unlinked++;
  }
  return {
    result: { rows: promotions.length, written, items, gifts, unknownItems, newLists, unreadableDates: unreadable.length, linked, unlinked },
    unreadable,
  };
}

/**
 * Links promotion items still waiting for their product to the products published since
 * (by the rules of findItemProduct); run once at the end of an import, so an item is linked
 * however the run's files were ordered, and in a later import when its price file comes then.
 * @example linkPendingItems(db) // → 31
 */
export function linkPendingItems(db: Database): number {
  return db.run(
    `UPDATE promotion_items SET product_id = coalesce(
       (SELECT p.id FROM products p WHERE p.scope_chain_id = promotion_items.item_scope AND p.barcode_key = promotion_items.item_key),
       CASE WHEN promotion_items.item_scope = 0 THEN
         (SELECT p.id FROM promotions pr JOIN products p ON p.scope_chain_id = pr.chain_id AND p.barcode_key = promotion_items.item_key
           WHERE pr.id = promotion_items.promotion_id) END,
       CASE WHEN promotion_items.gtin_like = 1 THEN
         (SELECT p.id FROM products p WHERE p.scope_chain_id = 0 AND p.barcode_key = promotion_items.item_key
             AND EXISTS (SELECT 1 FROM promotion_stores ps JOIN price_current pc ON pc.store_id = ps.store_id AND pc.product_id = p.id
                          WHERE ps.list_id = promotion_items.list_id)) END)
     WHERE product_id IS NULL`,
  ).changes;
}

/**
 * Deletes item lists no store links to any more (of those released this run) and promotions no
 * store links to (with their lists); run once at the end of an import, inside its transaction.
 * @example collectOrphanPromotions(db, statements.released) // → 12
 */
export function collectOrphanPromotions(db: Database, released: Iterable<number> = []): number {
  const inUse = db.prepare("SELECT 1 FROM promotion_stores WHERE list_id = ? LIMIT 1");
  const dropItems = db.prepare("DELETE FROM promotion_items WHERE list_id = ?");
  const dropList = db.prepare("DELETE FROM promotion_lists WHERE list_id = ?");
  for (const list of released) {
    if (inUse.get(list)) continue;
    dropItems.run(list);
    dropList.run(list);
  }
  const orphan = "NOT EXISTS (SELECT 1 FROM promotion_stores ps WHERE ps.promotion_id = promotions.id)";
  const orphanLists = `SELECT list_id FROM promotion_lists WHERE promotion_id IN (SELECT id FROM promotions WHERE ${orphan})`;
  db.run(`DELETE FROM promotion_items WHERE list_id IN (${orphanLists})`);
  db.run(`DELETE FROM promotion_lists WHERE list_id IN (${orphanLists})`);
  return db.run(`DELETE FROM promotions WHERE ${orphan}`).changes;
}
