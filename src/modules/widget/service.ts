import type { AppDeps } from "../../app.ts";
import { stmt } from "../../db/statements.ts";
import { chainPriceEntries, requireProduct } from "../prices/service.ts";

/** The product's image: the operator's URL template when set, else none (no generated image route yet). */
export function productImageUrl(deps: AppDeps, barcode: string): string | null {
  const template = deps.settings.imageUrlTemplate;
  return template ? template.replaceAll("{barcode}", encodeURIComponent(barcode)) : null;
}

/**
 * GET /api/v1/widget/data/: the chain entries of /prices/ (same rules, same order: effective
 * price, then chain name) cut down to what the widget shows. 404 product_not_found for an
 * unknown barcode.
 */
export function widgetData(deps: AppDeps, barcode: string) {
  const product = requireProduct(deps, barcode);
  const entries = chainPriceEntries(deps, product);
  return {
    barcode: product.barcode,
    name: product.name,
    image_url: productImageUrl(deps, product.barcode),
    prices: entries.map((e) => ({
      chain_id: e.chain_id,
      chain_name: e.chain_name,
      price_ils: e.price_ils,
      effective_price_ils: e.effective_price_ils,
      is_on_promotion: e.is_on_promotion,
      store_count: e.store_count,
    })),
    cheapest_chain_id: entries[0]?.chain_id ?? null,
    data_updated_at: deps.data.current.updatedAt,
  };
}

export interface DemoProduct {
  barcode: string;
  name: string;
  stores: number;
  chains: number;
}

/** The shared-barcode products sold in most stores (then most chains): good demo material, chosen from the data. */
export function demoProducts(deps: AppDeps, limit = 4): DemoProduct[] {
  return stmt(
    deps.db.prices,
    `SELECT p.barcode, p.name, sum(cp.store_count) AS stores, count(*) AS chains
         FROM chain_products cp JOIN products p ON p.id = cp.product_id
        WHERE p.scope_chain_id = 0
        GROUP BY cp.product_id
        ORDER BY stores DESC, chains DESC, p.barcode
        LIMIT ?`,
  ).all(limit) as DemoProduct[];
}
