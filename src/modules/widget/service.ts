import type { AppDeps } from "../../app.ts";
import { stmt } from "../../db/statements.ts";
import { formatIls } from "../../time.ts";
import { chainFigures, requireProduct, storeFigures } from "../prices/service.ts";

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
  const chains = chainFigures(storeFigures(deps, product));
  return {
    barcode: product.barcode,
    name: product.name,
    image_url: productImageUrl(deps, product.barcode),
    prices: chains.map((c) => ({
      chain_id: c.chainSlug,
      chain_name: c.chainName,
      price_ils: formatIls(c.price),
      effective_price_ils: formatIls(c.effective),
      is_on_promotion: c.effective < c.price,
      store_count: c.storeCount,
    })),
    cheapest_chain_id: chains[0]?.chainSlug ?? null,
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
