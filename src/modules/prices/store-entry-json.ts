import { formatIls } from "../../lib/time.ts";
import { pricePerMeasure, vatRate } from "../../pricing/rules.ts";
import type { ProductRow } from "../../pricing/queries.ts";
import type { StoreFigure } from "../../pricing/figures.ts";
import type { StoreTable } from "../../pricing/store-table.ts";
import { roundKm } from "../../geo/distance.ts";
import { GENERIC_SCOPE } from "../../identity/resolve.ts";

/** What an entry says beyond its figures (service.ts's EntryNotes). */
interface Notes {
  lowest: number | null;
  suspect: string | null;
}

/**
 * Each store's fixed part of its entries (chain, store object), per data version: made once per
 * store, when first listed, and kept with that version's store table (dropped with it).
 */
const prefixes = new WeakMap<StoreTable, (Uint8Array | undefined)[]>();

const encoder = new TextEncoder();

/**
 * A store entry as JSON: its store's fixed part as UTF-8 (`prefix`) and the rest as text — together
 * exactly what `JSON.stringify(storeEntry(s, product, notes))` gives (service.ts; a test holds them
 * equal), without the objects: an all-stores answer is 2,000 entries, and building them as objects
 * (spreads, then a generic stringify) was a third of its first computation. The fixed part holds
 * the Hebrew names, encoded once; the rest is mostly ASCII text, cheap to encode (a string mixing
 * both, built in pieces, cost 6× as much to encode). `table` is the data version's store table,
 * which the fixed part is kept with.
 */
export function storeEntryParts(s: StoreFigure, product: ProductRow, notes: Notes, table: StoreTable): { prefix: Uint8Array; rest: string } {
  const row = s.row;
  let held = prefixes.get(table);
  if (!held) prefixes.set(table, (held = []));
  const prefix = (held[row.store_db_id] ??= encoder.encode(
    `{"chain_id":${JSON.stringify(row.chain_slug)},"chain_name":${JSON.stringify(row.chain_name)},"granularity":"store",` +
    `"store":{"store_id":${JSON.stringify(row.store_code)},"branch_name":${JSON.stringify(row.branch_name ?? "")},` +
    `"city":${JSON.stringify(row.city || null)},"region":${JSON.stringify(row.region || null)}},"price_ils":"`,
  ));
  const per = pricePerMeasure(s.effective, product.size_amount, product.size_unit);
  const soldBy = product.scope_chain_id === GENERIC_SCOPE ? `,"sold_by":"${product.is_weighted === 1 ? "kg" : "unit"}"` : "";
  const rest =
    `${formatIls(s.shelf)}","effective_price_ils":"${formatIls(s.effective)}","currency":"ILS",` +
    `"vat_included":${!s.inEilat},"vat_rate":${vatRate(row.collected_at.slice(0, 10), s.inEilat)},` +
    `"collected_at":${JSON.stringify(row.collected_at)},"is_on_promotion":${s.effective < s.shelf},"promotion_id":${JSON.stringify(s.promotionId)},` +
    `"club_price_ils":${s.club === null ? "null" : `"${formatIls(s.club)}"`},` +
    `"lowest_price_30d_ils":${notes.lowest === null ? "null" : `"${formatIls(notes.lowest)}"`},` +
    `"suspect":${notes.suspect !== null},"suspect_reason":${JSON.stringify(notes.suspect)}${soldBy},` +
    `"price_per_measure_ils":${per ? `"${formatIls(per.agorot)}"` : "null"},"measure":${per ? `"${per.measure}"` : "null"}` +
    `${s.distanceKm === undefined ? "" : `,"distance_km":${roundKm(s.distanceKm)}`}}`;
  return { prefix, rest };
}
