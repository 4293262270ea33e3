import type { Item } from "./assortment.ts";
import type { LocalTime } from "./clock.ts";
import type { Profile } from "./profiles.ts";
import type { DemoPromotion } from "./promotions.ts";
import type { DemoStore } from "./stores.ts";

/** What one file says, before a dialect writes it out. */

export interface StoresDocument {
  code: string;
  chainName: string;
  stores: DemoStore[];
  time: LocalTime;
}

export interface PriceRow {
  item: Item;
  /** Agorot (per kg when weighted). */
  price: number;
  updated: LocalTime;
}

export interface PricesDocument {
  code: string;
  store: DemoStore;
  rows: PriceRow[];
  time: LocalTime;
}

export interface StorePromotion {
  promotion: DemoPromotion;
  /** The promotion's items this store sells. */
  items: { item: Item; gift: boolean; price: number }[];
}

export interface PromosDocument {
  code: string;
  store: DemoStore;
  promotions: StorePromotion[];
  time: LocalTime;
}

/** Writes a chain's three kinds of files in its dialect. */
export interface DialectWriter {
  stores(doc: StoresDocument, profile: Profile): string;
  prices(doc: PricesDocument, profile: Profile): string;
  promos(doc: PromosDocument, profile: Profile): string;
}
