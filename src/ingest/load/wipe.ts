import type { Database } from "bun:sqlite";

// Children before parents; chains, chain codes, run reports and fetch bookkeeping stay.
const PRICE_DATA_TABLES = [
  "promotion_items",
  "promotion_stores",
  "promotion_lists",
  "promotions",
  "chain_products",
  "generic_members",
  "product_names",
  "price_history",
  "price_current",
  "products",
  "stores",
  "sub_chains",
];

/**
 * Deletes all price data (stores, products, prices, history, promotions) so another source's
 * data can be loaded in its place — demo and live data are never mixed. Call inside the
 * import's transaction: readers keep the old data until it commits.
 * @example wipePriceData(db) // before loading live files over the demo data
 */
export function wipePriceData(db: Database): void {
  for (const table of PRICE_DATA_TABLES) db.run(`DELETE FROM ${table}`);
  db.run("UPDATE chain_health SET last_data_at = NULL, zero_rows = 0");
}
