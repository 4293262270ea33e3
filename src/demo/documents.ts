import type { Item } from "./assortment.ts";
import type { LocalTime } from "./clock.ts";
import type { Profile } from "./profiles.ts";
import type { DemoPromotion } from "./promotions.ts";
import type { DemoStore } from "./stores.ts";
import type { TextEncoding } from "./encoding.ts";
import type { ByteSink } from "./byte-sink.ts";

/** What one file says, before a dialect writes it out. */

export interface StoresDocument {
  code: string;
  chainName: string;
  stores: DemoStore[];
  time: LocalTime;
}

export interface PriceRow {
  /** The item's index in the chain plan (keys the row cache). */
  index: number;
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
  /** Item rows already written for another store of the chain, by row key (see rowKey), encoded. */
  rowCache?: Map<RowKey, string | Uint8Array>;
  /** The file's encoding: price files are written straight to bytes. */
  encoding: TextEncoding;
  /** Where the bytes are assembled (reused file after file); default a buffer of the file's own. */
  sink?: ByteSink;
}

// A pure memo of ids for (immutable) LocalTime objects while writing demo files: no app state.
const timeIds = new WeakMap<LocalTime, number>();
let nextTimeId = 0;

/** A row cache's key: a number when the parts fit in one (see rowKey), else a string. */
export type RowKey = number | string;

/**
 * What makes a price row's text: the item, its price and update time (and the file time for
 * rows that print it). Update times are shared objects, so their identity stands for them.
 * Packed into one exact number (item < 2¹⁴, agorot < 2²¹, time id < 2¹⁸) when they fit and
 * there is no file time — 620,000 keys a demo, built and hashed as strings they cost 7 % of
 * its generation; otherwise the parts joined into a string (never equal to a number).
 */
export function rowKey(row: PriceRow, extra = ""): RowKey {
  let id = timeIds.get(row.updated);
  if (id === undefined) timeIds.set(row.updated, (id = nextTimeId++));
  const { index, price } = row;
  if (extra === "" && index < 2 ** 14 && Number.isInteger(price) && price >= 0 && price < 2 ** 21 && id < 2 ** 18) {
    return (index * 2 ** 21 + price) * 2 ** 18 + id;
  }
  return `${index}|${price}|${id}|${extra}`;
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
  /** The file's bytes in `doc.encoding` (byte-order mark included). */
  prices(doc: PricesDocument, profile: Profile): Uint8Array<ArrayBuffer>;
  promos(doc: PromosDocument, profile: Profile): string;
}
