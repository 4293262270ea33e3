/** Who may call what: the spec's endpoint table. Plans nest: free ⊂ basic ⊂ pro. */

export type Plan = "free" | "basic" | "pro";
/** `mcp`: the MCP endpoint, open to a secret key of any plan; its tool calls are gated and counted as the API calls they make. */
export type Audience = Plan | "publishable" | "public" | "mcp";

export const PLAN_RANK: Record<Plan, number> = { free: 0, basic: 1, pro: 2 };

/** Route pattern (as registered, no trailing slash) → who may call it. */
export const ROUTE_AUDIENCE: Record<string, Audience> = {
  "GET /api/v1/prices": "free",
  "POST /api/v1/prices/batch": "free",
  "GET /api/v1/stores": "free",
  "GET /api/v1/exports": "pro",
  "GET /api/v1/exports/:date/:file": "pro",
  "GET /api/v1/product-search": "free",
  "GET /api/v1/prices/:barcode/history": "basic",
  "GET /api/v1/chains": "free",
  "GET /api/v1/chains/:id/catalog": "basic",
  "GET /api/v1/promos/feed": "pro",
  "POST /api/v1/basket/compare": "pro",
  "GET /api/v1/widget/data": "publishable",
  "POST /api/v1/alerts": "pro",
  "GET /api/v1/alerts": "pro",
  "GET /api/v1/alerts/:id": "pro",
  "DELETE /api/v1/alerts/:id": "pro",
  "GET /api/v1/alerts/:id/deliveries": "pro",
  "POST /api/v1/alerts/:id/test": "pro",
  "POST /mcp": "mcp",
  "GET /mcp": "mcp",
  "DELETE /mcp": "mcp",
};

/**
 * Routes whose answers are account data (alerts), not price data: they change without a new data
 * version, so they get no ETag, no 304 and `Cache-Control: no-store`.
 */
export const ACCOUNT_DATA_ROUTES: ReadonlySet<string> = new Set(["/api/v1/alerts", "/api/v1/alerts/:id", "/api/v1/alerts/:id/deliveries"]);

/**
 * Operations only live keys may call: test keys (sk_test_) read the sandbox, and these would hand
 * them live data — price alerts are evaluated on the live data after every import and deliver its
 * prices; the daily exports are files of the live data (the sandbox is not exported). A test key
 * gets 403 `live_key_required`.
 */
export const LIVE_ONLY_ROUTES: ReadonlySet<string> = new Set([
  "/api/v1/alerts",
  "/api/v1/alerts/:id",
  "/api/v1/alerts/:id/deliveries",
  "/api/v1/alerts/:id/test",
  "/api/v1/exports",
  "/api/v1/exports/:date/:file",
]);

/** The audience of a matched route; anything not in the table is public (docs, health, portal). */
export function audienceOf(method: string, route: string): Audience {
  const path = route.length > 1 && route.endsWith("/") ? route.slice(0, -1) : route;
  return ROUTE_AUDIENCE[`${method} ${path}`] ?? "public";
}

export function planAllows(plan: Plan, required: Plan): boolean {
  return PLAN_RANK[plan] >= PLAN_RANK[required];
}
