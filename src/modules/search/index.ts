import { withoutLeadingZeros } from "../../identity/product-key.ts";
import { Elysia } from "elysia";
import type { Feature } from "../feature.ts";
import { operation } from "../../openapi/operation.ts";
import { parseQuery } from "../../http/request/query.ts";
import * as z from "zod";
import { stmt } from "../../db/statements.ts";
import { ApiError } from "../../errors/api-error.ts";
import { classify } from "../../search/categories.ts";
import { labelSvg } from "./label-image.ts";
import { SearchQuery, SearchResponse } from "./model.ts";
import { cachedSearch, type SearchDeps } from "./service.ts";
import { documentedOnly, prebuiltJson } from "../../http/prebuilt/prebuilt-json.ts";
import { publicOrigin } from "../../http/request/public-origin.ts";
import { requestState } from "../../http/request/request-state.ts";
import { servedData, type DataSets } from "../../serving/data-set.ts";

/** `{barcode}.svg`: the file name of a label image. */
const ImageParams = z.object({ file: z.string().max(40).describe("`<barcode>.svg`") });

const ERRORS =
  "Errors: 400 `invalid_parameter` (with `param`) or `invalid_cursor` (malformed, another query's, or made before a data refresh), 404 `chain_not_found`, " +
  "401/403/429 as everywhere, 503 `data_not_ready` with `Retry-After` until data is imported and the search index is built.";

interface LabelRow {
  id: number;
  barcode: string;
  name: string;
  manufacturer: string | null;
  category: string | null;
  size_amount: number | null;
  size_unit: string | null;
}

function labelRow(deps: SearchDeps, key: string): { row: LabelRow; deps: SearchDeps } | null {
  const row = stmt(
    deps.db.prices,
    `SELECT id, barcode, name, manufacturer, category, size_amount, size_unit
       FROM products WHERE barcode_key = ? ORDER BY scope_chain_id, id LIMIT 1`,
  ).get(key) as LabelRow | null;
  return row ? { row, deps } : null;
}

const labelRowOf = (deps: SearchDeps | null, key: string) => (deps ? labelRow(deps, key) : null);

export const SEARCH_PRODUCTS = operation({
  method: "get",
  path: "/api/v1/product-search",
  operationId: "searchProducts",
  audience: "free",
  query: SearchQuery,
  examples: { q: "חלב 3%", chain_id: "shufersal", category: "dairy" },
  success: { schema: SearchResponse },
  errors: ["chain_not_found"],
  conditional: true,
  summary: "Search products by name, brand or barcode",
  tags: ["search"],
  description:
    "Hebrew product search over every product some store sells, most relevant first: products with every word of `q` (the last word may be half typed), " +
    "then, when few have all, products with some of them. Prefix letters (`והחלב`, `לבמבה`), final/regular letters, niqqud, geresh and gershayim or ASCII quotes (`קוטג'`, `מ\"ל`), " +
    "one typo in a word of four letters or more (two from eight), Latin brand names (`coca cola`) and barcodes (leading zeros do not matter) all find their products. " +
    "A package size in `q` (`1 ליטר`, `500 גרם`) is not matched as words: it ranks products of that size first. A query equal to a product's whole name ranks that product first; products whose name starts with a word of the query (`חלב`: milk before milk chocolate) rank before those that only contain it.\n\n" +
    "Filters: `chain_id` (sold in a store of that chain) and `category` (slug of the keyword classifier). Cursor pagination: pass `meta.next_cursor` as `cursor` with the same `q` and filters; " +
    "null on the last page. `meta.total` counts every match.\n\n" +
    "Items: `barcode`, `name`, `category`, `image_url` (a generated label image unless the operator set an image URL template), `manufacturer`, `unit_qty`, `size`, `unit`, " +
    "`chain_count`, `min_price_ils` (lowest shelf price; of the chain when `chain_id` is given).\n\n" +
    ERRORS +
    "\n\nExample: `GET /api/v1/product-search/?q=" +
    encodeURIComponent("במבה") +
    "&limit=5` (q=במבה)",
});

export const PRODUCT_IMAGE = operation({
  method: "get",
  path: "/images/products/:file",
  operationId: "getProductImage",
  audience: "public",
  params: ImageParams,
  examples: { file: "7291252436027.svg" },
  success: { description: "An SVG label", content: { "image/svg+xml": { schema: { type: "string" } } }, headers: { "Cache-Control": { description: "Images are public and long-lived" } } },
  errors: ["not_found", "product_not_found"],
  summary: "Generated product label image",
  tags: ["search"],
  description: "Public, no key. An SVG label (name, package size, category colour, barcode) for products without a photo; `image_url` of search items points here unless an image URL template is set. 404 `product_not_found` for an unknown barcode.",
});

/** GET /api/v1/product-search/ and the generated label images its items point to. */
export function searchModule(dataSets: DataSets) {
  const { settings } = dataSets.live;
  return new Elysia({ name: "module.search" })
    .use(prebuiltJson())
    .use(servedData)
    .get(
      SEARCH_PRODUCTS.path,
      ({ request, set, dataSet }) => {
        const query = parseQuery(request, SearchQuery);
        const { value, snapshot } = cachedSearch(dataSet, query, publicOrigin(request, settings.trustProxy));
        const { items, total, nextCursor } = value;
        requestState(request).snapshot = snapshot;
        // The ETag names the data version; while the index of an older version still serves, the
        // answer will change under the same tag once the rebuild is swapped in: not to be stored.
        if (dataSet.search.version !== snapshot.version) set.headers["cache-control"] = "no-store";
        return { data: items, meta: { next_cursor: nextCursor, total, data_updated_at: snapshot.updatedAt } };
      },
      {
        // Answers are cached and serialized once; tests check them against the schema.
        response: { 200: documentedOnly(SearchResponse) },
      },
    )
    .get(
      PRODUCT_IMAGE.path,
      ({ params }) => {
        const match = /^(\d{1,20})\.svg$/.exec(params.file);
        if (!match) throw new ApiError("not_found", "Product images are /images/products/{barcode}.svg.");
        const key = withoutLeadingZeros(match[1]!);
        // Image URLs carry no key: a product of the live data, else of the test-mode sandbox.
        const found = labelRow(dataSets.live, key) ?? labelRowOf(dataSets.sandboxData, key);
        if (!found) throw new ApiError("product_not_found", `No product with barcode ${match[1]}.`);
        const { row, deps } = found;
        const svg = labelSvg({
          barcode: row.barcode,
          name: row.name,
          sizeAmount: row.size_amount,
          sizeUnit: row.size_unit,
          category: deps.search.categoryOf(row.id) ?? row.category ?? classify(row.name, row.manufacturer),
        });
        return new Response(svg, {
          headers: {
            "content-type": "image/svg+xml; charset=utf-8",
            "cache-control": "public, max-age=86400",
            "x-content-type-options": "nosniff",
            "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'",
          },
        });
      },
      { params: ImageParams },
    );
}

/** Product search and product images. */
export const searchFeature: Feature = {
  name: "search",
  operations: [SEARCH_PRODUCTS, PRODUCT_IMAGE],
  routes: ({ services }) => searchModule(services.dataSets),
};
