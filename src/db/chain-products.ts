import type { Database } from "bun:sqlite";

/**
 * Rebuilds the `chain_products` summary (per chain and product: store count, min and max
 * shelf price) from `price_current`. Run inside the import's transaction, after loading, so
 * the summary switches together with the data. One grouped scan: ~1 s per million price rows.
 *
 * @example refreshChainProducts(db) // → rows written
 */
export function refreshChainProducts(db: Database): number {
  db.run("DELETE FROM chain_products");
  const result = db.run(
    `INSERT INTO chain_products (chain_id, barcode, product_id, store_count, price_min, price_max)
     SELECT s.chain_id, p.barcode, pc.product_id, count(*), min(pc.price), max(pc.price)
       FROM price_current pc
       JOIN stores s ON s.id = pc.store_id
       JOIN products p ON p.id = pc.product_id
      GROUP BY s.chain_id, pc.product_id
      ORDER BY s.chain_id, p.barcode, pc.product_id`,
  );
  return result.changes;
}
