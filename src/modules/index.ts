import type { Feature } from "./feature.ts";
import { operationsOf, declarationsOf } from "./feature.ts";
import { healthFeature } from "./health/index.ts";
import { homeFeature } from "./home/index.ts";
import { docsFeature } from "./docs/index.ts";
import { chainsFeature } from "./chains/index.ts";
import { priceIndexFeature } from "./price-index/index.ts";
import { pricesFeature } from "./prices/index.ts";
import { batchFeature } from "./batch/index.ts";
import { storesFeature } from "./stores/index.ts";
import { exportsFeature } from "./exports/index.ts";
import { catalogFeature } from "./catalog/index.ts";
import { promosFeature } from "./promos/index.ts";
import { basketFeature } from "./basket/index.ts";
import { widgetFeature } from "./widget/index.ts";
import { searchFeature } from "./search/index.ts";
import { alertsFeature } from "./alerts/index.ts";
import { portalFeature } from "./portal/index.ts";
import { mcpFeature } from "./mcp/index.ts";

/**
 * The service's features, each registered once (its routes, operations, audience, fast routes:
 * feature.ts). The app mounts them in this order; the OpenAPI document, the error list and the
 * access layer read their declarations from here. A new feature is a folder here and a line below.
 */
export const FEATURES: readonly Feature[] = [
  healthFeature,
  homeFeature,
  docsFeature,
  chainsFeature,
  priceIndexFeature,
  pricesFeature,
  batchFeature,
  storesFeature,
  exportsFeature,
  catalogFeature,
  promosFeature,
  basketFeature,
  widgetFeature,
  searchFeature,
  alertsFeature,
  portalFeature,
  mcpFeature,
];

/** Every operation the OpenAPI document describes, in the document's order. */
export const OPERATIONS = operationsOf(FEATURES);

/** What every route under /api/ and /mcp declares of its access: the operations and the undocumented routes. */
export const ROUTE_DECLARATIONS = declarationsOf(FEATURES);
