import * as z from "zod";
import { defineTool } from "../tool.ts";
import { SEARCH_PRODUCTS } from "../../search/index.ts";
import { Category, ChainId, Cursor } from "../arguments.ts";
import { count, ils, lines } from "../text.ts";

export const searchProducts = defineTool({
  name: "search_products",
  title: "Search products / חיפוש מוצרים",
  operation: SEARCH_PRODUCTS,
  description:
    "Find products sold by Israel's supermarket chains by name, brand or barcode, in Hebrew or English " +
    "(\"חלב תנובה 1 ליטר\", \"במבה\", \"coca cola\"); typos, Hebrew prefixes and package sizes are understood. " +
    "Each result gives the identifier to pass to get_prices, price_history and compare_basket: its barcode, with its chain_id when that is not null (an item of one chain); " +
    "loose produce (tomatoes, bananas …) comes first as a generic product (`g-…`) compared across chains per kilogram. Results also give " +
    "the lowest shelf price and how many chains sell it. " +
    "חיפוש מוצרים ברשתות השיווק לפי שם, מותג או ברקוד, בעברית או באנגלית; מחזיר ברקוד, מחיר הנמוך ביותר ומספר הרשתות. " +
    "{Plan}. Cost: 1 API call.",
  input: z
    .object({
      query: z.string().min(1).max(100).describe("What to look for (מה לחפש): a product name or part of one, a brand, or a barcode"),
      chain_id: ChainId.optional().describe("Only products sold by this chain (list_chains gives the ids)"),
      category: Category.optional(),
      limit: z.number().int().min(1).max(50).default(10).describe("Results per page, 1–50 (default 10)"),
      cursor: Cursor.optional(),
    })
    .strict(),
  request: (args) => ({
    method: "GET",
    path: "/api/v1/product-search/",
    query: { q: args.query, chain_id: args.chain_id, category: args.category, limit: args.limit, cursor: args.cursor },
  }),
  summary: (data: any[], meta, args) => {
    if (data.length === 0) return `No products match "${args.query}".`;
    const head = `${data.length} of ${meta.total} products matching "${args.query}":`;
    const rows = lines(data, 50, (p) => {
      const scope = p.chain_id ? `, chain_id ${p.chain_id}` : "";
      const per = p.sold_by === "kg" ? " per kg" : "";
      const maker = p.manufacturer ? ` (${p.manufacturer})` : "";
      return `- ${p.name}${maker} — barcode ${p.barcode}${scope} — from ${ils(p.min_price_ils)}${per} at ${count(p.chain_count, "chain")}`;
    });
    const more = meta.next_cursor ? ["More: call again with cursor = meta.next_cursor."] : [];
    return [head, ...rows, ...more].join("\n");
  },
});
