import type { Database } from "bun:sqlite";

/**
 * Rebuilds the `chain_products` summary (per chain and product: store count, min, max and the
 * chain price) from `price_current`. Run inside the import's transaction, after loading, so the
 * summary switches together with the data. (The import uses the faster one-pass version in
 * src/ingest/load/chain-products.ts; this one is its reference in tests.)
 *
 * Every figure is over the chain's stores outside Eilat (VAT-free) unless the chain sells the
 * product only there — the same rule as the chain entries of /prices/; the chain price
 * (`price_mode`) is the most common shelf price among them, the lower on a tie.
 *
 * @example refreshChainProducts(db) // → rows written
 */
export function refreshChainProducts(db: Database): number {
  db.run("DELETE FROM chain_products");
  const result = db.run(
    `WITH counted AS (
       SELECT s.chain_id, pc.product_id, pc.price, (lower(trim(coalesce(s.city, ''))) IN ('אילת', 'eilat', '2600')) AS eilat, count(*) AS n
         FROM price_current pc JOIN stores s ON s.id = pc.store_id
        GROUP BY s.chain_id, pc.product_id, eilat, pc.price
     ),
     kept AS (
       -- Eilat's rows only where the chain sells the product nowhere else.
       SELECT *, min(eilat) OVER (PARTITION BY chain_id, product_id) AS only_eilat FROM counted
     ),
     ranked AS (
       SELECT chain_id, product_id, price, n,
              first_value(price) OVER (PARTITION BY chain_id, product_id ORDER BY n DESC, price) AS mode_price
         FROM kept WHERE eilat = only_eilat
     )
     INSERT INTO chain_products (chain_id, barcode, product_id, store_count, price_min, price_max, price_mode)
     SELECT r.chain_id, p.barcode, r.product_id, sum(r.n), min(r.price), max(r.price), max(r.mode_price)
       FROM ranked r JOIN products p ON p.id = r.product_id
      GROUP BY r.chain_id, r.product_id
      ORDER BY r.chain_id, p.barcode, r.product_id`,
  );
  return result.changes;
}
