import { isEilatCity } from "./eilat.ts";
import { mode } from "./rules.ts";

/** One change row of a product's price history at a store, with the store's chain and city. */
export interface HistoryRow {
  store_id: number;
  valid_from: string;
  price: number | null;
  chain_slug: string;
  chain_name: string;
  city: string | null;
}

/**
 * A chain's price per day from its stores' change-only history: after each day's changes the
 * chain price is the most common price among the stores then selling the product (outside
 * Eilat unless the chain sells it only there). Emits the state on the window's first day, then
 * one record per day on which the chain price changed.
 */
export function chainSeries(rows: HistoryRow[], from: string): { date: string; price: number }[] {
  const useEilat = rows.every((r) => isEilatCity(r.city));
  const current = new Map<number, number>();
  const out: { date: string; price: number }[] = [];
  let last: number | null = null;
  let openedWindow = false;
  const emit = (date: string) => {
    const price = mode([...current.values()]);
    if (price !== null && price !== last) {
      out.push({ date, price });
      last = price;
    }
  };
  let i = 0;
  while (i < rows.length) {
    const day = rows[i]!.valid_from.slice(0, 10);
    if (!openedWindow && day > from) {
      openedWindow = true;
      emit(from);
    }
    for (; i < rows.length && rows[i]!.valid_from.slice(0, 10) === day; i++) {
      const r = rows[i]!;
      if (!useEilat && isEilatCity(r.city)) continue;
      if (r.price === null) current.delete(r.store_id);
      else current.set(r.store_id, r.price);
    }
    if (day >= from) {
      openedWindow = true;
      emit(day);
    }
  }
  if (!openedWindow) emit(from);
  return out;
}

/**
 * A generic product's change rows folded from its members' (ordered by store, then time): in a
 * store, its price is the lowest of the group's items sold there — the rule of its price_current
 * rows (src/ingest/load/generic-products.ts) — and a row is emitted whenever that changes.
 * @example genericChanges([[1, 7, "2026-01-01", 590], [2, 7, "2026-01-01", 650], [1, 7, "2026-02-01", null]]) // → [[7, "2026-01-01", 590], [7, "2026-02-01", 650]]
 */
export function genericChanges(rows: [member: number, store: number, validFrom: string, price: number | null][]): [number, string, number | null][] {
  const out: [number, string, number | null][] = [];
  let i = 0;
  while (i < rows.length) {
    const store = rows[i]![1];
    const held = new Map<number, number>();
    let last: number | null | undefined;
    while (i < rows.length && rows[i]![1] === store) {
      const at = rows[i]![2];
      // Every member's change at the same instant first, then one row for the store.
      for (; i < rows.length && rows[i]![1] === store && rows[i]![2] === at; i++) {
        const [member, , , price] = rows[i]!;
        if (price === null) held.delete(member);
        else held.set(member, price);
      }
      const price = held.size === 0 ? null : Math.min(...held.values());
      if (price !== last) out.push([store, at, price]);
      last = price;
    }
  }
  return out;
}

