import type { Database } from "bun:sqlite";
import catalogue from "../../fixtures/search/catalogue.json" with { type: "json" };
import { openMemory } from "../../../src/db/open.ts";
import { syncRegistry } from "../../../src/db/sync-registry.ts";
import { refreshChainProducts } from "../../../src/db/chain-products.ts";
import { bumpDataVersion } from "../../../src/data/data-state.ts";
import { loadRegistry } from "../../../src/registry.ts";

export interface CatalogueProduct {
  barcode: string;
  name: string;
  manufacturer: string | null;
  category: string;
}

export const CATALOGUE = catalogue as CatalogueProduct[];

/** Chains of the fixture stores; product i is sold in chain i mod 3 and, for even i, also in the next. */
export const FIXTURE_CHAINS = ["shufersal", "rami-levy", "victory"];

/**
 * An in-memory price database holding the fixture catalogue: every product sold in one or two
 * of three chains (category column left empty, as a loader without the classifier leaves it).
 * Returns the database and barcode → products.id.
 */
export function catalogueDatabase(): { db: Database; idOf: Map<string, number>; chainIds: Map<string, number> } {
  const { prices: db } = openMemory();
  const chainIds = syncRegistry(db, loadRegistry());
  const stores = FIXTURE_CHAINS.map((slug) => {
    const chainId = chainIds.get(slug)!;
    const row = db
      .query("INSERT INTO stores (chain_id, chain_code, store_code, name, city) VALUES (?, (SELECT code FROM chain_codes WHERE chain_id = ? LIMIT 1), '1', 'סניף', 'תל אביב-יפו') RETURNING id")
      .get(chainId, chainId) as { id: number };
    return row.id;
  });
  const insertProduct = db.prepare(
    "INSERT INTO products (barcode, barcode_key, name, manufacturer, updated_at) VALUES (?, ?, ?, ?, '2026-11-22T05:00:00+02:00') RETURNING id",
  );
  const insertPrice = db.prepare("INSERT INTO price_current (store_id, product_id, price, updated_at) VALUES (?, ?, ?, '2026-11-22T05:00:00+02:00')");
  const idOf = new Map<string, number>();
  db.transaction(() => {
    CATALOGUE.forEach((p, i) => {
      const { id } = insertProduct.get(p.barcode, p.barcode.replace(/^0+(?=\d)/, ""), p.name, p.manufacturer) as { id: number };
      idOf.set(p.barcode, id);
      insertPrice.run(stores[i % 3]!, id, 500 + i);
      if (i % 2 === 0) insertPrice.run(stores[(i + 1) % 3]!, id, 520 + i);
    });
    refreshChainProducts(db);
    bumpDataVersion(db, "2026-11-22T05:00:00+02:00", "demo");
  })();
  return { db, idOf, chainIds };
}
