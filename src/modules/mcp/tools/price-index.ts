import * as z from "zod";
import { defineTool } from "../tool.ts";
import { GET_PRICE_INDEX } from "../../price-index/index.ts";
import { City } from "../arguments.ts";
import { REGIONS } from "../../../geo/geo.ts";

/** One chain's index as a line. */
function indexLine(entry: any): string {
  const index = entry.index === null ? "no index (carries under half of the basket)" : `index ${entry.index} (rank ${entry.rank})`;
  return `- ${entry.chain_name} (${entry.chain_id}): ${index}, ${entry.products} basket products (${Math.round(entry.coverage * 100)}%)`;
}

export const chainPriceIndex = defineTool({
  name: "chain_price_index",
  title: "Which chain is cheapest overall / מדד מחירים לרשתות",
  operation: GET_PRICE_INDEX,
  description:
    "Which supermarket chain is cheapest overall: each chain's price index over a common basket (the products at least 80 % of the chains sell), " +
    "100 = the median chain, 95 = 5 % cheaper; ranked, cheapest first; optionally for a region or a city. " +
    "מדד מחירים: איזו רשת הכי זולה בסך הכל, לפי סל מוצרים משותף. " +
    "{Plan}. Cost: 1 API call.",
  input: z
    .object({
      region: z.enum(REGIONS).optional().describe("Only stores of this region"),
      city: City.optional().describe("Only stores of this city (עיר)"),
    })
    .strict(),
  request: (args) => ({ method: "GET", path: "/api/v1/chains/price-index/", query: { region: args.region, city: args.city } }),
  summary: (data: any[], meta: any, args) => {
    const where = args.city ? ` in ${args.city}` : args.region ? ` in the ${args.region} region` : "";
    if (data.length === 0) return `No chain has prices${where}.`;
    return [`Chain price index${where} over a basket of ${meta?.basket_products ?? "?"} products (100 = the median chain), cheapest first:`, ...data.map(indexLine)].join("\n");
  },
});
