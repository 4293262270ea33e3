import type { StorePriceRow } from "../modules/prices/queries.ts";
import type { UnitPromotion } from "../modules/prices/pricing.ts";

/** One store's figures for a product, in agorot. */
export interface StoreFigure {
  row: StorePriceRow;
  shelf: number;
  effective: number;
  promotionId: string | null;
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
  min: number;
  max: number;
  storeCount: number;
  collectedAt: string;
  /** True when only VAT-exempt (Eilat) stores carry the product in this chain. */
  eilatOnly: boolean;
  stores: StoreFigure[];
}
