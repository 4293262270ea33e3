import type { McpTool } from "../tool.ts";
import { searchProducts } from "./search-products.ts";
import { getPrices } from "./get-prices.ts";
import { compareBasket } from "./compare-basket.ts";
import { priceHistory } from "./price-history.ts";
import { listChains } from "./list-chains.ts";
import { findStores } from "./find-stores.ts";
import { promotions } from "./promotions.ts";
import { chainPriceIndex } from "./price-index.ts";
import { planBasket } from "./plan-basket.ts";

/** The tools /mcp offers, in the order tools/list shows them. */
export const TOOLS: readonly McpTool[] = [searchProducts, getPrices, compareBasket, planBasket, priceHistory, listChains, chainPriceIndex, findStores, promotions];
