import type { PricingData } from "../deps.ts";
import { stmt } from "../db/statements.ts";
import { isEilatCity } from "./eilat.ts";
import { storeTable } from "./store-table.ts";
import { clubPrice, effectivePrice, isOpenToAll, isOpenToMembers, mode, modeOfCounts, type UnitPromotion } from "./rules.ts";
import { isActive, storeFilterSql, type ProductRow } from "./queries.ts";
import type { ChainFigure } from "./figures.ts";
import { storeFilterOf, type PriceQuery } from "./store-filter.ts";
import type { StoreFilter } from "./queries.ts";
import { publicPromotionId, unitPromotion, type PromotionTermsRow } from "./promotion-row.ts";

/**
 * The chain figures of /prices/ (see chainFigures in service.ts: mode of shelf and effective
 * prices over a chain's stores outside Eilat, min, max, count, newest collection time), computed
 * without reading every store's row into JavaScript: SQLite groups the stores by chain, Eilat
 * and price; only chains where an active promotion can lower a unit's price are read store by
 * store. A product sold in 2,000 stores took ~8 ms the row-by-row way, ~1 ms this way.
 * chain-summary.test.ts checks both ways agree on random data.
 */

interface PromotionRow extends PromotionTermsRow {
  promotion_db_id: number;
  /** The item list naming the product: only the stores linked to it get the promotion. */
  list_id: number;
  chain_id: number;
}

interface Group {
  chain_id: number;
  chain_slug: string;
  chain_name: string;
  eilat: number;
  price: number;
  n: number;
  collected_at: string;
}

/** Whether a promotion can lower the price of one unit (the same conditions as unitPromotionPrice). */
function canLowerUnitPrice(p: UnitPromotion): boolean {
  if (!isOpenToAll(p)) return false;
  if (p.minQty !== null && p.minQty > 1) return false;
  return (p.discountedPrice !== null && p.discountedPrice > 0) || (p.discountRate !== null && p.discountRate > 0 && p.discountRate <= 1);
}

/** Whether a club-only promotion can lower a member's price of one unit (clubPrice's conditions). */
function canLowerClubPrice(p: UnitPromotion): boolean {
  return p.isClubOnly && isOpenToMembers(p) && canLowerUnitPrice({ ...p, isClubOnly: false });
}

/** A member's price of one unit at a store: the club price when a club-only promotion beats the price open to all. */
function memberPrice(shelf: number, units: UnitPromotion[]): number {
  const effective = effectivePrice(shelf, units).price;
  return clubPrice(shelf, effective, units)?.price ?? effective;
}

/** Store cities the VAT rule treats as Eilat, as a JSON array (per data version: cities change only with imports). */
function eilatCities(deps: PricingData): string {
  return deps.tables.eilatCities.get();
}

/**
 * The groups of chainSummary without city/region filters, folded here from the product's rows
 * of the (product_id, price) index — which holds store_id too, so no table row is read — instead
 * of joining every row to its store in SQL (~3 ms → well under 1 ms for a product in 2,000
 * stores, which is what a busy server recomputes after each import). Null when a store carrying
 * the product has no prices_at (its rows' own times are needed: the SQL path).
 */
function foldedGroups(deps: PricingData, productId: number, chainId: number | null, rows: [number, number][]): (Group & { undated: number })[] | null {
  const table = storeTable(deps);
  const groups = new Map<string, Group & { undated: number }>();
  for (const [storeId, price] of rows) {
    // A store the table does not know (added without a new data version): the SQL path.
    if (storeId >= table.chainOf.length || table.chainOf[storeId] === 0) return null;
    const chain = table.chainOf[storeId]!;
    if (chainId !== null && chain !== chainId) continue;
    const pricesAt = table.pricesAt[storeId] ?? null;
    if (pricesAt === null) return null;
    const eilat = table.eilat[storeId]!;
    const key = `${chain}:${eilat}:${price}`;
    const group = groups.get(key);
    if (group) {
      group.n++;
      if (pricesAt > group.collected_at) group.collected_at = pricesAt;
    } else {
      const names = table.chains.get(chain)!;
      groups.set(key, { chain_id: chain, chain_slug: names.slug, chain_name: names.name, eilat, price, n: 1, collected_at: pricesAt, undated: 0 });
    }
  }
  return [...groups.values()];
}


/**
 * Chain figures of a product (sorted as /prices/ sorts them) and until when they hold: the next
 * start or end of one of the product's promotions.
 */
export function chainSummary(deps: PricingData, product: ProductRow, query: PriceQuery, now: Date): { chains: ChainFigure[]; validUntil: number } {
  const db = deps.db.prices;
  const at = now.getTime();

  // The product's promotions (one row per promotion and item list naming it, not per store).
  const promotions = stmt(
    db,
    `SELECT pr.id AS promotion_db_id, pi.list_id, pr.chain_id, c.slug AS chain_slug, pr.promotion_code, pr.starts_at, pr.ends_at,
            coalesce(pi.min_qty, pr.min_qty) AS min_qty, coalesce(pi.max_qty, pr.max_qty) AS max_qty,
            coalesce(pi.discounted_price, pr.discounted_price) AS discounted_price,
            coalesce(pi.discount_rate, pr.discount_rate) AS discount_rate,
            pr.is_club_only, pr.is_coupon, pr.min_purchase_amount
       FROM promotion_items pi JOIN promotions pr ON pr.id = pi.promotion_id JOIN chains c ON c.id = pr.chain_id
      WHERE pi.product_id = ? AND pi.is_gift = 0`,
  ).all(product.id) as PromotionRow[];
  let validUntil = Infinity;
  // By item list: a store gets a promotion for the product only when its own list names it.
  const lowering = new Map<number, UnitPromotion>();
  const chainOfList = new Map<number, number>();
  // Club-only promotions that can lower a member's unit price, by list (with the lowering ones: a member gets both).
  const members = new Map<number, UnitPromotion>();
  const clubChains = new Set<number>();
  for (const r of promotions) {
    const starts = r.starts_at ? Date.parse(r.starts_at) : NaN;
    const ends = r.ends_at ? Date.parse(r.ends_at) : NaN;
    if (starts > at && starts < validUntil) validUntil = starts;
    if (ends > at && ends < validUntil) validUntil = ends;
    if (!isActive(r.starts_at, r.ends_at, at)) continue;
    const unit = unitPromotion(r, publicPromotionId(r.chain_slug, r.promotion_code));
    if (canLowerUnitPrice(unit)) {
      lowering.set(r.list_id, unit);
      chainOfList.set(r.list_id, r.chain_id);
      members.set(r.list_id, unit);
    } else if (canLowerClubPrice(unit)) {
      members.set(r.list_id, unit);
      clubChains.add(r.chain_id);
    }
  }
  const promotedChains = new Set(chainOfList.values());

  // Shelf prices grouped by chain, Eilat and price. A store's collection time is its prices_at,
  // else the row's updated_at; reading updated_at costs a table lookup per row (it is not in the
  // index by product), so it is read only for the stores without prices_at, usually none.
  const { filter } = storeFilterOf(deps, query);
  const { sql, args } = storeFilterSql(filter);
  const eilat = eilatCities(deps);
  const chainFilterId = query.chainId ? (storeTable(deps).chainIdOf?.(query.chainId) ?? null) : null;
  const foldable = !filter.city && !filter.region && !filter.chainIds && !filter.storeIds && (!query.chainId || chainFilterId !== null);
  // The product's (store, price) rows, read once from the covering index for both folds below.
  const storeRows = foldable ? (stmt(db, "SELECT store_id, price FROM price_current WHERE product_id = ?").values(product.id) as [number, number][]) : null;
  const folded = storeRows ? foldedGroups(deps, product.id, chainFilterId, storeRows) : null;
  const groups = folded ?? stmt(
    db,
    `SELECT s.chain_id, c.slug AS chain_slug, c.name AS chain_name, coalesce(s.city IN (SELECT value FROM json_each(?)), 0) AS eilat,
            pc.price, count(*) AS n, max(s.prices_at) AS collected_at, sum(s.prices_at IS NULL) AS undated
       FROM price_current pc JOIN stores s ON s.id = pc.store_id JOIN chains c ON c.id = s.chain_id
      WHERE pc.product_id = ?${sql}
      GROUP BY s.chain_id, eilat, pc.price`,
  ).all(eilat, product.id, ...args) as (Group & { undated: number })[];
  if (groups.some((g) => g.undated > 0)) {
    const dated = stmt(
      db,
      `SELECT s.chain_id, coalesce(s.city IN (SELECT value FROM json_each(?)), 0) AS eilat, pc.price, max(pc.updated_at) AS updated_at
         FROM price_current pc JOIN stores s ON s.id = pc.store_id JOIN chains c ON c.id = s.chain_id
        WHERE pc.store_id IN (SELECT id FROM stores WHERE prices_at IS NULL) AND pc.product_id = ?${sql}
        GROUP BY s.chain_id, eilat, pc.price`,
    ).all(eilat, product.id, ...args) as { chain_id: number; eilat: number; price: number; updated_at: string }[];
    for (const d of dated) {
      const g = groups.find((x) => x.chain_id === d.chain_id && x.eilat === d.eilat && x.price === d.price)!;
      if (g.collected_at === null || d.updated_at > g.collected_at) g.collected_at = d.updated_at;
    }
  }

  const byChain = new Map<number, Group[]>();
  for (const g of groups) {
    const list = byChain.get(g.chain_id);
    if (list) list.push(g);
    else byChain.set(g.chain_id, [g]);
  }

  const effectiveOf =
    promotedChains.size > 0
      ? storeModes(deps, product.id, promotedChains, lowering, filter, folded ? storeRows : null, (shelf, units) => effectivePrice(shelf, units).price)
      : new Map<number, number>();
  const memberOf = clubChains.size > 0 ? storeModes(deps, product.id, clubChains, members, filter, folded ? storeRows : null, memberPrice) : new Map<number, number>();
  const chains: ChainFigure[] = [];
  for (const [chainId, all] of byChain) {
    const vat = all.filter((g) => g.eilat === 0);
    const counted = vat.length > 0 ? vat : all;
    const priceCounts = new Map<number, number>();
    let min = Infinity;
    let max = -Infinity;
    let storeCount = 0;
    let collectedAt = counted[0]!.collected_at;
    for (const g of counted) {
      priceCounts.set(g.price, (priceCounts.get(g.price) ?? 0) + g.n);
      if (g.price < min) min = g.price;
      if (g.price > max) max = g.price;
      storeCount += g.n;
      if (g.collected_at > collectedAt) collectedAt = g.collected_at;
    }
    const price = modeOfCounts(priceCounts);
    const effective = effectiveOf.get(chainId) ?? price;
    const member = memberOf.get(chainId);
    chains.push({
      chainSlug: all[0]!.chain_slug,
      chainName: all[0]!.chain_name,
      price,
      effective,
      club: member !== undefined && member < effective ? member : null,
      min,
      max,
      storeCount,
      collectedAt,
      eilatOnly: vat.length === 0,
      stores: [],
    });
  }
  return { chains, validUntil };
}

/**
 * The most common price (`priceAt`: the effective price, or a member's) of each chain in
 * `chainIds` over its counted stores (outside Eilat unless the chain sells the product only
 * there), store by store, in one pass for all of them; `lowering` holds the promotions by item list.
 */
function storeModes(
  deps: PricingData,
  productId: number,
  chainIds: Set<number>,
  lowering: Map<number, UnitPromotion>,
  filter: StoreFilter,
  storeRows: [number, number][] | null,
  priceAt: (shelf: number, units: UnitPromotion[]) => number,
): Map<number, number> {
  const db = deps.db.prices;
  const storesOf = new Map<number, UnitPromotion[]>();
  const links = stmt(db, "SELECT list_id, store_id FROM promotion_stores WHERE list_id IN (SELECT value FROM json_each(?))").all(
    JSON.stringify([...lowering.keys()]),
  ) as { list_id: number; store_id: number }[];
  for (const l of links) {
    const unit = lowering.get(l.list_id)!;
    const list = storesOf.get(l.store_id);
    if (list) list.push(unit);
    else storesOf.set(l.store_id, [unit]);
  }
  const perChain = new Map<number, { vat: number[]; eilat: number[] }>();
  const add = (chainId: number, storeId: number, price: number, eilat: boolean) => {
    let lists = perChain.get(chainId);
    if (!lists) perChain.set(chainId, (lists = { vat: [], eilat: [] }));
    (eilat ? lists.eilat : lists.vat).push(priceAt(price, storesOf.get(storeId) ?? []));
  };
  if (storeRows) {
    // Rows already read for the shelf figures (no city/region filter): the store table says where.
    const table = storeTable(deps);
    for (const [storeId, price] of storeRows) {
      const chainId = table.chainOf[storeId]!;
      if (chainIds.has(chainId)) add(chainId, storeId, price, table.eilat[storeId] === 1);
    }
  } else {
    const { sql, args } = storeFilterSql({ ...filter, chainId: undefined, chainIds: undefined });
    const rows = stmt(
      db,
      `SELECT s.chain_id, pc.store_id, pc.price, s.city FROM price_current pc JOIN stores s ON s.id = pc.store_id
        WHERE pc.product_id = ? AND s.chain_id IN (SELECT value FROM json_each(?))${sql}`,
    ).all(productId, JSON.stringify([...chainIds]), ...args) as { chain_id: number; store_id: number; price: number; city: string | null }[];
    for (const r of rows) add(r.chain_id, r.store_id, r.price, isEilatCity(r.city));
  }
  const out = new Map<number, number>();
  for (const [chainId, { vat, eilat }] of perChain) out.set(chainId, mode(vat.length > 0 ? vat : eilat)!);
  return out;
}
