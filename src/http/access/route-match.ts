import { ROUTE_AUDIENCE, audienceOf, type Audience } from "../plans.ts";

/**
 * The access layer runs in onRequest, before Elysia routes the request, so it matches paths to
 * the patterns of ROUTE_AUDIENCE itself (same rules: trailing slash optional, `:param` = one segment).
 */
const PATTERNS = Object.keys(ROUTE_AUDIENCE).map((key) => {
  const [method, path] = key.split(" ") as [string, string];
  const source = path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:[A-Za-z]+/g, "[^/]+");
  return { method, path, regex: new RegExp(`^${source}/?$`) };
});

export interface MatchedRoute {
  /** The route pattern, e.g. `/api/v1/prices/:barcode/history`; null when no access rule names the path. */
  route: string | null;
  audience: Audience;
}

/** HEAD is answered like GET, so it needs what GET needs. */
export function matchRoute(method: string, pathname: string): MatchedRoute {
  const m = method === "HEAD" ? "GET" : method;
  for (const p of PATTERNS) {
    if (p.method === m && p.regex.test(pathname)) return { route: p.path, audience: audienceOf(m, p.path) };
  }
  return { route: null, audience: "public" };
}

export const WIDGET_ROUTE = "/api/v1/widget/data";
