import type { Database } from "bun:sqlite";

/**
 * Rebuilds the `chain_products` summary (per chain and product: store count, min, max and the
 * chain price) from `price_current`. Run inside the import's transaction, after loading, so the
 * summary switches together with the data.
 *
 * The chain price (`price_mode`) is the most common shelf price among the chain's stores, the
 * lower on a tie, over stores outside Eilat (VAT-free) unless the chain sells the product only
 * there — the same rule as the chain entries of /prices/.
 *
 * @example refreshChainProducts(db) // → rows written
 */
export function refreshChainProducts(db: Database): number {
  db.run("DELETE FROM chain_products");
  const result = db.run(
    `WITH counted AS (
       SELECT s.chain_id, pc.product_id, pc.price, (coalesce(s.city, '') = 'אילת') AS eilat, count(*) AS n
         FROM price_current pc JOIN stores s ON s.id = pc.store_id
        GROUP BY s.chain_id, pc.product_id, eilat, pc.price
     ),
     ranked AS (
       SELECT chain_id, product_id, price, n,
              first_value(price) OVER (PARTITION BY chain_id, product_id ORDER BY eilat, n DESC, price) AS mode_price
         FROM counted
     )
     INSERT INTO chain_products (chain_id, barcode, product_id, store_count, price_min, price_max, price_mode)
     SELECT r.chain_id, p.barcode, r.product_id, sum(r.n), min(r.price), max(r.price), max(r.mode_price)
       FROM ranked r JOIN products p ON p.id = r.product_id
      GROUP BY r.chain_id, r.product_id
      ORDER BY r.chain_id, p.barcode, r.product_id`,
  );
  return result.changes;
}
