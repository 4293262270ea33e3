import type { Database } from "bun:sqlite";
import { stmt } from "../db/statements.ts";
import { ApiError, invalidParameter } from "../errors/api-error.ts";
import type { ProductRow } from "../pricing/queries.ts";
import { isGenericId, isProductId, productKey, PRODUCT_ID_RULE } from "./product-id.ts";

/** `products.scope_chain_id` of generic products (loose produce grouped across chains). */
export const GENERIC_SCOPE = -1;

/** One product a bare code could mean: what the client passes back to name it. */
export interface ProductCandidate {
  barcode: string;
  /** The chain whose item it is; null for a shared GTIN product. */
  chain_id: string | null;
  name: string;
}

export type ResolveResult =
  | { ok: true; product: ResolvedProduct }
  | { ok: false; error: "invalid" }
  | { ok: false; error: "product_not_found" }
  | { ok: false; error: "ambiguous_product"; candidates: ProductCandidate[] };

/** A product row with the slug of the chain it belongs to (null: shared GTIN or generic product). */
export interface ResolvedProduct extends ProductRow {
  scope_slug: string | null;
}

const COLUMNS =
  "p.id, p.scope_chain_id, p.barcode, p.barcode_key, p.name, p.manufacturer, p.unit_qty, p.size_amount, p.size_unit, p.is_weighted, p.category, c.slug AS scope_slug";

/**
 * THE product-identifier resolution of the API: every endpoint that names a product by a
 * client-supplied identifier (prices, history, basket, widget data, batch prices, alerts, MCP)
 * resolves it here, so one identifier means one product everywhere.
 *
 * Contract (docs/api.md "Product identity"):
 * - `barcode` is a barcode or chain-internal item code (1–20 digits, leading zeros not
 *   significant) or a generic product id (`g-tomatoes`); anything else → `invalid`.
 * - A generic id names its generic product (`chain_id` then only narrows stores, as for a GTIN).
 * - With `chain_id` (a chain slug): that chain's own item under the code when it has one (a
 *   chain-internal code, also when its digits equal a GTIN); else the shared GTIN product.
 * - Without `chain_id`: the shared GTIN product when there is one; else the one chain item under
 *   that code; two or more chains' items → `ambiguous_product` with every candidate
 *   (`{ barcode, chain_id, name }`), never a silent pick.
 * - Nothing under the code → `product_not_found`.
 * It does not check that `chain_id` is a known chain (callers answer `chain_not_found` first).
 *
 * @example resolveProduct(db, { barcode: "7290000066318" })             // { ok: true, product: {…} }
 * @example resolveProduct(db, { barcode: "4087", chain_id: "rami-levy" }) // rami-levy's own item 4087
 * @example resolveProduct(db, { barcode: "4087" })                        // { ok: false, error: "ambiguous_product", candidates: [...] }
 * @example resolveProduct(db, { barcode: "g-tomatoes" })                  // the generic product "עגבניות"
 */
export function resolveProduct(db: Database, request: { barcode: string; chain_id?: string | null }): ResolveResult {
  const { barcode } = request;
  if (typeof barcode !== "string" || !isProductId(barcode)) return { ok: false, error: "invalid" };
  const key = productKey(barcode);
  const rows = stmt(db, `SELECT ${COLUMNS} FROM products p LEFT JOIN chains c ON c.id = p.scope_chain_id WHERE p.barcode_key = ? ORDER BY p.scope_chain_id, p.id`).all(
    key,
  ) as ResolvedProduct[];
  if (isGenericId(barcode)) {
    const generic = rows.find((r) => r.scope_chain_id === GENERIC_SCOPE);
    return generic ? { ok: true, product: generic } : { ok: false, error: "product_not_found" };
  }
  const shared = rows.find((r) => r.scope_chain_id === 0);
  if (request.chain_id) {
    const own = rows.find((r) => r.scope_slug === request.chain_id && r.scope_chain_id > 0);
    if (own) return { ok: true, product: own };
    return shared ? { ok: true, product: shared } : { ok: false, error: "product_not_found" };
  }
  if (shared) return { ok: true, product: shared };
  const scoped = rows.filter((r) => r.scope_chain_id > 0);
  if (scoped.length === 1) return { ok: true, product: scoped[0]! };
  if (scoped.length === 0) return { ok: false, error: "product_not_found" };
  return {
    ok: false,
    error: "ambiguous_product",
    candidates: scoped.map((r) => ({ barcode: r.barcode, chain_id: r.scope_slug, name: r.name })),
  };
}

/**
 * resolveProduct for an endpoint: the product, or the ApiError to answer with — 400
 * `invalid_parameter`, 404 `product_not_found`, 400 `ambiguous_product` (with `candidates`) —
 * naming `param` (e.g. `barcode`, `items[2].barcode`).
 * @example requireProduct(db, { barcode: "4087", chain_id: "shufersal" }, "barcode")
 */
export function requireProduct(db: Database, request: { barcode: string; chain_id?: string | null }, param = "barcode"): ResolvedProduct {
  const result = resolveProduct(db, request);
  if (result.ok) return result.product;
  throw productError(result, request.barcode, param);
}

/** The ApiError of a failed resolution. */
export function productError(result: Exclude<ResolveResult, { ok: true }>, barcode: string, param = "barcode"): ApiError {
  if (result.error === "invalid") return invalidParameter(param, `${param} must be ${PRODUCT_ID_RULE}.`);
  if (result.error === "product_not_found") {
    return new ApiError("product_not_found", `No chain sells a product with barcode ${barcode}.`);
  }
  const chains = result.candidates.map((c) => c.chain_id).join(", ");
  return new ApiError(
    "ambiguous_product",
    `${barcode} is an internal item code of several chains (${chains}); pass the item's chain_id with it (see candidates).`,
    { param, extensions: { candidates: result.candidates } },
  );
}
