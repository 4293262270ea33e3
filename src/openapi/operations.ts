import type { Operation } from "./operation.ts";
import { LIVENESS, READINESS } from "../modules/health/index.ts";
import { GET_PRICES, GET_PRICE_HISTORY } from "../modules/prices/index.ts";
import { BATCH_PRICES } from "../modules/batch/index.ts";
import { GET_STORES } from "../modules/stores/index.ts";
import { GET_EXPORT_FILE, LIST_EXPORTS } from "../modules/exports/index.ts";
import { LIST_CHAINS } from "../modules/chains/index.ts";
import { GET_CATALOG } from "../modules/catalog/index.ts";
import { GET_PROMOS } from "../modules/promos/index.ts";
import { COMPARE_BASKET } from "../modules/basket/index.ts";
import { PRODUCT_IMAGE, SEARCH_PRODUCTS } from "../modules/search/index.ts";
import { WIDGET_DATA, WIDGET_PREFLIGHT } from "../modules/widget/index.ts";
import type { RouteDeclaration } from "../http/routes.ts";
import { CREATE_ALERT, DELETE_ALERT, GET_ALERT, LIST_ALERT_DELIVERIES, LIST_ALERTS, TEST_ALERT } from "../modules/alerts/index.ts";
import { MCP } from "../modules/mcp/index.ts";

/**
 * Every operation the OpenAPI document describes, in the document's order. Left out: the portal
 * (HTML pages and forms for people), the docs themselves, the widget's files and demo page, and
 * the favicon — none is an API a client would generate code for.
 */
export const OPERATIONS: readonly Operation[] = [
  GET_PRICES,
  BATCH_PRICES,
  GET_PRICE_HISTORY,
  SEARCH_PRODUCTS,
  PRODUCT_IMAGE,
  LIST_CHAINS,
  GET_CATALOG,
  GET_STORES,
  GET_PROMOS,
  COMPARE_BASKET,
  WIDGET_DATA,
  CREATE_ALERT,
  LIST_ALERTS,
  GET_ALERT,
  DELETE_ALERT,
  LIST_ALERT_DELIVERIES,
  TEST_ALERT,
  LIST_EXPORTS,
  GET_EXPORT_FILE,
  MCP,
  LIVENESS,
  READINESS,
];

/** What every route declares of its access: the operations, and the undocumented routes under /api/ (the widget's CORS preflight). */
export const ROUTE_DECLARATIONS: readonly RouteDeclaration[] = [...OPERATIONS, WIDGET_PREFLIGHT];
