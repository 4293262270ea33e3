import { describe, expect, test } from "bun:test";
import { storeEntry } from "../../../src/modules/prices/service.ts";
import { storeEntryParts } from "../../../src/modules/prices/store-entry-json.ts";
import type { StoreFigure } from "../../../src/pricing/figures.ts";
import type { ProductRow, StorePriceRow } from "../../../src/pricing/queries.ts";
import type { StoreTable } from "../../../src/pricing/store-table.ts";
import { GENERIC_SCOPE } from "../../../src/identity/resolve.ts";

const milk: ProductRow = {
  id: 1, scope_chain_id: 0, barcode: "7290000066318", barcode_key: "7290000066318", name: "חלב", manufacturer: null,
  unit_qty: null, size_amount: 1000, size_unit: "ml", is_weighted: 0, category: null,
};
const tomatoes: ProductRow = { ...milk, id: 2, scope_chain_id: GENERIC_SCOPE, barcode: "g-tomatoes", size_amount: null, size_unit: null, is_weighted: 1 };
const loose: ProductRow = { ...tomatoes, id: 3, is_weighted: 0 };

function row(over: Partial<StorePriceRow> = {}): StorePriceRow {
  return {
    store_db_id: 7, store_code: "12", chain_db_id: 1, chain_slug: "rami-levy", chain_name: "רמי לוי \"שיווק\"", branch_name: "סניף\\ראשי",
    city: "חיפה", region: "haifa", price: 690, collected_at: "2026-11-20T08:00:00+02:00", ...over,
  };
}

function figure(over: Partial<StoreFigure> = {}, rowOver: Partial<StorePriceRow> = {}): StoreFigure {
  const r = row(rowOver);
  return { row: r, shelf: r.price, effective: r.price, promotionId: null, club: null, inEilat: false, promotions: [], ...over };
}

/** An entry's JSON text: its fixed part (UTF-8) and the rest. */
function storeEntryJson(...args: Parameters<typeof storeEntryParts>): string {
  const { prefix, rest } = storeEntryParts(...args);
  return new TextDecoder().decode(prefix) + rest;
}

describe("storeEntryParts", () => {
  const cases: [string, StoreFigure, ProductRow, { lowest: number | null; suspect: "placeholder" | "far_below_median" | "far_above_median" | null }][] = [
    ["plain", figure(), milk, { lowest: 690, suspect: null }],
    ["promotion, club, lowest unknown", figure({ effective: 500, promotionId: "rami-levy:R1", club: 450 }), milk, { lowest: null, suspect: null }],
    ["suspect placeholder, 0.01", figure({ shelf: 1, effective: 1 }, { price: 1 }), milk, { lowest: 1, suspect: "placeholder" }],
    ["Eilat, before 2025, no branch name, city or region", figure({ inEilat: true }, { branch_name: null, city: null, region: null, collected_at: "2024-12-31T23:00:00+02:00" }), milk, { lowest: 600, suspect: "far_below_median" }],
    ["empty city and region are null", figure({}, { city: "", region: "" }), milk, { lowest: 690, suspect: null }],
    ["generic sold per kg, with a distance", figure({ distanceKm: 1.23456 }), tomatoes, { lowest: 590, suspect: null }],
    ["generic sold per unit, distance 0", figure({ distanceKm: 0 }), loose, { lowest: 590, suspect: "far_above_median" }],
    ["negative and large figures", figure({ shelf: 123456789, effective: -5 }), milk, { lowest: 100000, suspect: null }],
  ];
  test.each(cases)("%s: together, the text JSON.stringify gives of storeEntry", (_name, s, product, notes) => {
    const table = { version: 1 } as unknown as StoreTable;
    const json = storeEntryJson(s, product, notes, table);
    expect(json).toBe(JSON.stringify(storeEntry(s, product, notes)));
    // The store's fixed part, kept for the table's data version, is the same the second time.
    expect(storeEntryJson(s, product, notes, table)).toBe(json);
  });
});
