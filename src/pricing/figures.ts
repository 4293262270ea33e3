import type { Clock, PricingData } from "../deps.ts";
import { isEilatCity } from "./eilat.ts";
import { clubPrice, effectivePrice, mode, type UnitPromotion } from "./rules.ts";
import { productPromotions, storePrices, type ProductRow, type StorePriceRow } from "./queries.ts";
import { storeFilterOf, type PriceQuery } from "./store-filter.ts";

/** Hebrew collation for chain names (one collator: `localeCompare(x, "he")` sets one up per call). */
export const hebrew = new Intl.Collator("he");

/** What store figures read: the prices database and the per-version tables (the `near` filter). */
type FigureData = Pick<PricingData, "db" | "tables">;

/** One store's figures for a product, in agorot. */
export interface StoreFigure {
  row: StorePriceRow;
  shelf: number;
  effective: number;
  promotionId: string | null;
  /** A club member's price when a club-only promotion beats `effective` (clubPrice), else null. */
  club: number | null;
  inEilat: boolean;
  promotions: UnitPromotion[];
  /** Kilometres from the `near` point, when the question had one. */
  distanceKm?: number;
}

/** One chain's figures for a product (the contract's chain price rules), in agorot. */
export interface ChainFigure {
  chainSlug: string;
  chainName: string;
  /** Most common shelf price among the chain's stores (tie → lower). */
  price: number;
  /** Most common effective price among the same stores. */
  effective: number;
  /** Most common price a club member pays among the same stores, when lower than `effective`; else null. */
  club: number | null;
  min: number;
  max: number;
  storeCount: number;
  collectedAt: string;
  /** True when only VAT-exempt (Eilat) stores carry the product in this chain. */
  eilatOnly: boolean;
  stores: StoreFigure[];
}

/** Every store's shelf and effective price for a product, filtered by chain, city and region. */
export function storeFigures(deps: FigureData & { now: Clock }, product: ProductRow, query: PriceQuery = {}): StoreFigure[] {
  return storeFiguresUntil(deps, product, query, deps.now()).stores;
}

/** storeFigures, plus until when they hold (the next start or end of one of the product's promotions). */
export function storeFiguresUntil(deps: FigureData, product: ProductRow, query: PriceQuery, now: Date): { stores: StoreFigure[]; validUntil: number } {
  const { byStore: promotions, validUntil } = productPromotions(deps.db.prices, product.id, now);
  const out: StoreFigure[] = [];
  const { filter, distances } = storeFilterOf(deps, query);
  for (const row of storePrices(deps.db.prices, product.id, filter)) {
    const storePromotions = promotions.get(row.store_db_id) ?? [];
    const { price, promotionId } = effectivePrice(row.price, storePromotions);
    const club = clubPrice(row.price, price, storePromotions)?.price ?? null;
    const figure: StoreFigure = { row, shelf: row.price, effective: price, promotionId, club, inEilat: isEilatCity(row.city), promotions: storePromotions };
    if (distances) figure.distanceKm = distances.get(row.store_db_id)!;
    out.push(figure);
  }
  return { stores: out, validUntil };
}

/**
 * Groups store figures by chain. A chain's price is taken over its stores outside Eilat
 * (VAT-exempt prices would pull the national figure down); a chain selling the product only
 * in Eilat is priced from those stores and flagged.
 */
export function chainFigures(stores: StoreFigure[]): ChainFigure[] {
  const byChain = new Map<string, StoreFigure[]>();
  for (const s of stores) {
    const list = byChain.get(s.row.chain_slug) ?? [];
    list.push(s);
    byChain.set(s.row.chain_slug, list);
  }
  const out: ChainFigure[] = [];
  for (const [slug, all] of byChain) {
    const vatStores = all.filter((s) => !s.inEilat);
    const counted = vatStores.length > 0 ? vatStores : all;
    const shelves = counted.map((s) => s.shelf);
    const effective = mode(counted.map((s) => s.effective))!;
    const member = counted.some((s) => s.club !== null) ? mode(counted.map((s) => s.club ?? s.effective))! : null;
    out.push({
      chainSlug: slug,
      chainName: all[0]!.row.chain_name,
      price: mode(shelves)!,
      effective,
      club: member !== null && member < effective ? member : null,
      min: Math.min(...shelves),
      max: Math.max(...shelves),
      storeCount: counted.length,
      collectedAt: counted.reduce((a, s) => (s.row.collected_at > a ? s.row.collected_at : a), counted[0]!.row.collected_at),
      eilatOnly: vatStores.length === 0,
      stores: counted,
    });
  }
  return sortChains(out);
}

/** /prices/ order of chains: effective price, then chain name (Hebrew collation), then id. */
export function sortChains(chains: ChainFigure[]): ChainFigure[] {
  return chains.sort((a, b) => a.effective - b.effective || hebrew.compare(a.chainName, b.chainName) || a.chainSlug.localeCompare(b.chainSlug));
}
